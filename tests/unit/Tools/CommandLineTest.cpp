// The command-line convention every tool shares (tools/common/command_line.h).
#include "command_line.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace tensorium_cli;

namespace {

struct Parsed {
  double grid = 0;
  bool quiet = false;
  std::vector<std::string> files;
};

CommandLine table(Parsed &p) {
  CommandLine cli("tool", "[options] FILE...");
  cli.group("grid")
      .option("--grid", "N", "points per side", [&](const std::string &v) { p.grid = parseNumber("--grid", v); })
      .flag("--quiet", "no progress", [&] { p.quiet = true; })
      .option("-o", "FILE", "output file", [&](const std::string &) {})
      .renamed("--npoints", "--grid")
      .operands("input files", [&](const std::string &f) { p.files.push_back(f); }, 1, 2)
      .notes("Exit status: 0 done, 2 bad arguments.");
  return cli;
}

std::string parseError(std::vector<const char *> args) {
  Parsed p;
  args.insert(args.begin(), "tool");
  std::ostringstream out;
  try {
    table(p).parse(static_cast<int>(args.size()), args.data(), out);
  } catch (const UsageError &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(CommandLine, ValuesWithSpaceOrEqualsAndOperands) {
  for (std::vector<const char *> args : {std::vector<const char *>{"tool", "--grid", "12", "a.tn"},
                                         std::vector<const char *>{"tool", "a.tn", "--grid=12"}}) {
    Parsed p;
    std::ostringstream out;
    EXPECT_TRUE(table(p).parse(static_cast<int>(args.size()), args.data(), out));
    EXPECT_EQ(p.grid, 12);
    EXPECT_EQ(p.files, std::vector<std::string>{"a.tn"});
  }
}

TEST(CommandLine, EveryMistakeIsOneNamedMessage) {
  EXPECT_EQ(parseError({"--gird", "3", "a"}), "unknown option '--gird'; did you mean '--grid'?");
  EXPECT_EQ(parseError({"-grid", "3", "a"}), "unknown option '-grid'; did you mean '--grid'?");
  EXPECT_EQ(parseError({"--zzzzzz", "a"}), "unknown option '--zzzzzz'");
  EXPECT_EQ(parseError({"a", "--grid"}), "'--grid' needs a value (N)");
  EXPECT_EQ(parseError({"--grid", "--quiet", "a"}), "'--grid' needs a value (N)");
  EXPECT_EQ(parseError({"--grid", "-o", "x", "a"}), "'--grid' needs a value (N)");
  EXPECT_EQ(parseError({"--grid", "-oout", "a"}), "'--grid' needs a value (N)");
  EXPECT_EQ(parseError({"--grid", "-3", "a"}), "");
  EXPECT_EQ(parseError({"--grid=", "a"}), "'--grid' needs a value (N)");
  EXPECT_EQ(parseError({"--quiet=yes", "a"}), "'--quiet' takes no value");
  EXPECT_EQ(parseError({"--grid", "x", "a"}), "--grid expects a finite number, got 'x'");
  EXPECT_EQ(parseError({"--quiet"}), "no input files given");
  EXPECT_EQ(parseError({"a", "b", "c"}), "unexpected argument 'c' (more than 2 input files)");
  EXPECT_EQ(parseError({"a"}), "");
}

TEST(CommandLine, HelpComesFromTheTable) {
  Parsed p;
  const std::string help = table(p).help();
  EXPECT_NE(help.find("usage: tool [options] FILE..."), std::string::npos);
  EXPECT_NE(help.find("\ngrid:\n  --grid N"), std::string::npos);
  EXPECT_NE(help.find("points per side"), std::string::npos);
  EXPECT_NE(help.find("  --quiet "), std::string::npos);
  EXPECT_NE(help.find("Exit status: 0 done, 2 bad arguments."), std::string::npos);
  const char *args[] = {"tool", "--help"};
  std::ostringstream out;
  EXPECT_FALSE(table(p).parse(2, args, out));
  EXPECT_EQ(out.str(), help);
  std::ostringstream err;
  EXPECT_EQ(table(p).usageError("bad", err), 2);
  EXPECT_EQ(err.str(), "tool: error: bad\n(run 'tool --help' for usage)\n");
}

TEST(CommandLine, SizesForPeople) {
  EXPECT_EQ(humanBytes(512), "512 B");
  EXPECT_EQ(humanBytes(1536), "1.5 KiB");
  EXPECT_EQ(humanBytes(16012000000.0), "14.9 GiB");
  EXPECT_EQ(nearestName("--resolution", {"--resolutions", "--grid"}), "--resolutions");
}

TEST(CommandLine, OldNamesWorkWithAWarningAndStayOutOfTheOptionList) {
  for (std::vector<const char *> args : {std::vector<const char *>{"tool", "--npoints", "7", "a.tn"},
                                         std::vector<const char *>{"tool", "--npoints=7", "a.tn"}}) {
    Parsed p;
    std::ostringstream out;
    testing::internal::CaptureStderr();
    EXPECT_TRUE(table(p).parse(static_cast<int>(args.size()), args.data(), out));
    EXPECT_EQ(testing::internal::GetCapturedStderr(),
              "tool: warning: '--npoints' is now '--grid' (the old name still works)\n");
    EXPECT_EQ(p.grid, 7);
  }
  Parsed p;
  const std::string help = table(p).help();
  EXPECT_EQ(help.find("  --npoints"), std::string::npos);
  EXPECT_NE(help.find("Old names, still accepted with a warning: --npoints (now --grid)."), std::string::npos);
  const auto names = table(p).optionNames();
  EXPECT_EQ(std::find(names.begin(), names.end(), "--npoints"), names.end());
  EXPECT_EQ(parseError({"a", "--npoints"}), "'--npoints' needs a value (N)");
}
