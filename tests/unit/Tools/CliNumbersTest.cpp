// The tools' shared number parser: every extreme or malformed string is a UsageError naming the
// option, never a silent value; valid ones convert exactly.
#include "cli_numbers.h"
#include "output_paths.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace tensorium_cli;

TEST(CliNumbers, ParsesDecimalNumbers) {
  EXPECT_EQ(parseNumber("--b", "1.5"), 1.5);
  EXPECT_EQ(parseNumber("--b", "-2e-3"), -2e-3);
  EXPECT_EQ(parseNumber("--b", "+.5"), 0.5);
  EXPECT_EQ(parseNumber("--b", "5."), 5.0);
  EXPECT_EQ(parseNumber("--b", "1E+2"), 100.0);
  EXPECT_EQ(parseNumber("--b", "1e308"), 1e308);
}

TEST(CliNumbers, RejectsEveryNonDecimalOrOutOfRangeNumber) {
  for (const char *text : {"", " 1", "1 ", "nan", "NaN", "inf", "-inf", "infinity", "0x10", "0x1p3", "1e400", "-1e400",
                           "1e-400", "1e", "e5", ".", "-", "+", "1.2.3", "1e5e5", "1,5", "--1", "1e+", "١", "1\n"}) {
    EXPECT_THROW(parseNumber("--b", text), UsageError) << "'" << text << "'";
  }
  try {
    parseNumber("--m1", "nan");
    FAIL();
  } catch (const UsageError &e) {
    EXPECT_NE(std::string(e.what()).find("--m1"), std::string::npos);
  }
}

TEST(CliNumbers, ParsesIntegersInRangeOnly) {
  EXPECT_EQ(parseInteger("--grid", "48", 1, 100), 48);
  EXPECT_EQ(parseInteger("--grid", "-5", -10, 10), -5);
  for (const char *text : {"", "0", "101", "-1e300", "1e2", "4.0", "0x10", "99999999999999999999999",
                           "-99999999999999999999999", "9223372036854775808", "12a", "+", "1,2"}) {
    EXPECT_THROW(parseInteger("--grid", text, 1, 100), UsageError) << "'" << text << "'";
  }
}

TEST(CliNumbers, ListsNeedExactItems) {
  EXPECT_EQ(parseIntegers("--npoints", "4,5,6", 1, 10, 3, 3), (std::vector<long>{4, 5, 6}));
  EXPECT_EQ(parseNumbers("--p1", "0,0.2,-1e-3", 3), (std::vector<double>{0, 0.2, -1e-3}));
  for (const char *text : {"", ",", "4,5,", ",4,5,6", "4,,6", "4,5", "4,5,6,7", "4,5,-1e300", "4;5;6"})
    EXPECT_THROW(parseIntegers("--npoints", text, 1, 10, 3, 3), UsageError) << "'" << text << "'";
  EXPECT_THROW(parseNumbers("--p1", "1,2,nan", 3), UsageError);
  // A very long list is refused without splitting all of it.
  EXPECT_THROW(parseIntegers("--resolutions", std::string(100000, '1') + ",", 1, 10, 1, 32), UsageError);
}

TEST(OutputPaths, MissingOrUnwritableFoldersAreRefused) {
  EXPECT_THROW(requireWritableOutput("--csv", "/nonexistent/dir/x.csv"), UsageError);
  EXPECT_THROW(requireWritableOutput("--csv", "/"), UsageError);
  EXPECT_THROW(requireWritableOutput("--csv", ""), UsageError);
  EXPECT_NO_THROW(requireWritableOutput("--csv", testing::TempDir() + "/x.csv"));
  EXPECT_EQ(partialName("a/b/c.png"), "a/b/.partial-c.png");
  EXPECT_EQ(partialName("c.png"), ".partial-c.png");
}

TEST(OutputPaths, WritesAtomically) {
  const std::string path = testing::TempDir() + "/atomic.txt";
  ASSERT_TRUE(writeFileAtomically(path, "complete\n"));
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "complete");
  EXPECT_FALSE(std::ifstream(partialName(path)).good());
  EXPECT_FALSE(writeFileAtomically("/nonexistent/dir/x.txt", "x"));
}
