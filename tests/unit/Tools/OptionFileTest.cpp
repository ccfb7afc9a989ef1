// RunOptions files (tools/common/option_file.h): every option a key, values in their TOML forms, the
// command line winning, and every mistake located at its key.
#include "option_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace tensorium_cli;

namespace {

struct RunOptions {
  double grid = 0;
  bool quiet = false;
  std::vector<std::string> tracks, params;
  std::string p1;
};

CommandLine table(RunOptions &r) {
  CommandLine cli("tool", "[RUN.toml] [options]");
  cli.option("--grid", "N", "points", [&](const std::string &v) { r.grid = parseNumber("--grid", v); })
      .flag("--quiet", "no progress", [&] { r.quiet = true; })
      .option("--track", "x,y,z", "repeatable", [&](const std::string &v) { r.tracks.push_back(v); })
      .option("--param", "NAME=VALUE", "repeatable", [&](const std::string &v) { r.params.push_back(v); })
      .option("--p1", "x,y,z", "a vector", [&](const std::string &v) { r.p1 = v; });
  return cli;
}

std::string file(const std::string &text) {
  const std::string path = (std::filesystem::temp_directory_path() / "tensorium_option_file_test.toml").string();
  std::ofstream(path) << text;
  return path;
}

/// Parses `args`, then applies the run file; returns the error ("" when none).
std::string parseRun(RunOptions &r, const std::string &text, std::vector<const char *> args = {}) {
  args.insert(args.begin(), "tool");
  const CommandLine cli = table(r);
  std::ostringstream out;
  try {
    cli.parse(static_cast<int>(args.size()), args.data(), out);
    OptionFile f(file(text));
    f.apply(cli, cli.given());
  } catch (const UsageError &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(OptionFile, EveryValueFormReachesItsOption) {
  RunOptions r;
  EXPECT_EQ(parseRun(r, "grid = 48\nquiet = true\ntrack = [[1, 0, 0], [-1.5, 0, 0]]\np1 = [0, 0.25, 0]\n"
                   "[param]\namp = 2\nname = \"x\"\n"),
            "");
  EXPECT_EQ(r.grid, 48);
  EXPECT_TRUE(r.quiet);
  EXPECT_EQ(r.tracks, (std::vector<std::string>{"1,0,0", "-1.5,0,0"}));
  EXPECT_EQ(r.p1, "0,0.25,0");
  EXPECT_EQ(r.params, (std::vector<std::string>{"amp=2", "name=x"}));
  RunOptions off;
  EXPECT_EQ(parseRun(off, "quiet = false\n"), "");
  EXPECT_FALSE(off.quiet);
}

TEST(OptionFile, TheCommandLineWins) {
  RunOptions r;
  EXPECT_EQ(parseRun(r, "grid = 48\ntrack = [[1, 0, 0]]\n", {"--grid", "16"}), "");
  EXPECT_EQ(r.grid, 16);
  EXPECT_EQ(r.tracks, std::vector<std::string>{"1,0,0"});
  RunOptions bad;
  EXPECT_EQ(parseRun(bad, "grid = \"many\"\n", {"--grid", "8"}), ""); // the file's bad value is never read
}

TEST(OptionFile, MistakesAreLocatedAtTheirKey) {
  const std::string path = file("");
  auto located = [&](const std::string &text) {
    RunOptions fresh;
    return parseRun(fresh, text);
  };
  EXPECT_EQ(located("grid = 8\ngird = 3\n"),
            path + ":2:1: error: unknown key 'gird'; did you mean 'grid'? (the keys are the options without their dashes)");
  EXPECT_EQ(located("\n  grid = \"x\"\n"), path + ":2:3: error: key 'grid': --grid expects a finite number, got 'x'");
  EXPECT_EQ(located("quiet = 1\n"), path + ":1:1: error: key 'quiet': expected true or false (a flag)");
  EXPECT_EQ(located("track = [[1, 0], {a = 1}]\n").find(path + ":1:1: error: key 'track': "), 0u);
  EXPECT_EQ(located("grid = []\n"), path + ":1:1: error: key 'grid': expected a non-empty array of numbers or strings");
  EXPECT_EQ(located("help = true\n").find(path + ":1:1: error: unknown key 'help'"), 0u);
  EXPECT_EQ(located("grid = \n").find(path + ":1:8: error: "), 0u);
  // A check made after the file was read, about an option the file set, points at its key.
  RunOptions checked;
  const CommandLine cli = table(checked);
  OptionFile f(file("\n\ngrid = -3\n"));
  f.apply(cli, {});
  try {
    f.rethrowLocated(UsageError("--grid must be positive"), {});
  } catch (const UsageError &e) {
    EXPECT_EQ(std::string(e.what()), path + ":3:1: error: key 'grid': --grid must be positive");
  }
}
