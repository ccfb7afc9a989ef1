// Tensorium_cc: the .tn compiler driver.
#include "tensorium_mlir/Frontend/ASTDumper.h"
#include "tensorium_mlir/Frontend/Frontend.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

using namespace tensorium_mlir::frontend;

namespace {
constexpr const char *kUsage =
    "usage: Tensorium_cc [options] <file.tn>\n"
    "\n"
    "Compiles a Tensorium tensor program. With no action the program is checked only.\n"
    "\n"
    "actions:\n"
    "  --syntax-only        parse and analyse; report diagnostics only\n"
    "  --dump-ast           print the analysed syntax tree\n"
    "  --print-summary      print fields, parameters and the kernel families the program lowers to\n"
    "\n"
    "options:\n"
    "  -o <file>            write the action's output to <file> ('-' is standard output)\n"
    "  --help               show this help\n"
    "  --version            show the compiler and ABI version\n"
    "\n"
    "Diagnostics go to standard error as 'file:line:col: error: message'; the exit status is 1\n"
    "when any error was reported.\n";

int usageError(const std::string &message) {
  std::cerr << "Tensorium_cc: error: " << message << "\n(run 'Tensorium_cc --help' for usage)\n";
  return 1;
}

bool readInput(const std::string &path, std::string &out) {
  if (path == "-") {
    out.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "Tensorium_cc: error: cannot read '" << path << "': " << std::strerror(errno) << '\n';
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    std::cerr << "Tensorium_cc: error: cannot read '" << path << "': read failed\n";
    return false;
  }
  out = ss.str();
  return true;
}
} // namespace

int main(int argc, char **argv) {
  enum class Action { Check, DumpAst, Summary };
  Action action = Action::Check;
  bool actionSet = false;
  std::string input, output = "-";
  bool outputSet = false;

  auto setAction = [&](Action a, const char *flag) {
    if (actionSet && action != a)
      return usageError(std::string("'") + flag + "' conflicts with an earlier action flag");
    action = a;
    actionSet = true;
    return 0;
  };

  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (arg == "--version") {
      std::cout << "Tensorium_cc " << TENSORIUM_VERSION << " (generated kernel ABI v3)\n";
      return 0;
    }
    int rc = 0;
    if (arg == "--syntax-only")
      rc = setAction(Action::Check, "--syntax-only");
    else if (arg == "--dump-ast")
      rc = setAction(Action::DumpAst, "--dump-ast");
    else if (arg == "--print-summary")
      rc = setAction(Action::Summary, "--print-summary");
    else if (arg == "-o") {
      if (i + 1 >= argc)
        return usageError("'-o' needs a file name");
      output = argv[++i];
      outputSet = true;
    } else if (arg.rfind("-o", 0) == 0 && arg.size() > 2 && arg[2] != '-') {
      output = arg.substr(2);
      outputSet = true;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usageError("unknown option '" + arg + "'");
    } else {
      if (!input.empty())
        return usageError("more than one input file ('" + input + "' and '" + arg + "')");
      input = arg;
    }
    if (rc)
      return rc;
  }
  if (input.empty())
    return usageError("no input file");
  if (outputSet && action == Action::Check)
    return usageError("'-o' needs an action that produces output, such as --dump-ast");

  std::string text;
  if (!readInput(input, text))
    return 1;
  SourceManager sources(input == "-" ? "<stdin>" : input, std::move(text));
  DiagnosticEngine diags(sources, &std::cerr);
  Module module;
  bool ok = parseAndAnalyze(sources, diags, module);
  if (!ok) {
    unsigned n = diags.errorCount();
    std::cerr << n << (n == 1 ? " error" : " errors") << " generated.\n";
    return 1;
  }
  if (action == Action::Check)
    return 0;

  std::ofstream file;
  std::ostream *out = &std::cout;
  if (output != "-") {
    file.open(output, std::ios::binary);
    if (!file) {
      std::cerr << "Tensorium_cc: error: cannot write '" << output << "': " << std::strerror(errno) << '\n';
      return 1;
    }
    out = &file;
  }
  if (action == Action::DumpAst)
    dumpModule(module, sources, *out);
  else
    printModuleSummary(module, *out);
  out->flush();
  if (!*out) {
    std::cerr << "Tensorium_cc: error: writing '" << output << "' failed\n";
    return 1;
  }
  return 0;
}
