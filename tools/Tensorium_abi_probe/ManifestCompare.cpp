#include "ManifestCompare.h"

#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>

namespace tensorium_abi_probe {

const char *changeClassName(ChangeClass c) {
  return c == ChangeClass::Same ? "same" : c == ChangeClass::Additive ? "additive" : "breaking";
}

namespace {

struct Kernel {
  std::map<std::string, std::string> attributes; // from the kernel line: key=value
  std::vector<std::string> args;                 // "arg i ..." lines in order
  std::map<std::string, std::string> details;    // other lines by their first word (+ name for buffers)
};

struct Parsed {
  std::string version;
  std::map<std::string, std::string> structs; // name -> whole line
  std::map<std::string, std::map<std::string, std::string>> enums;
  std::map<std::string, std::map<std::string, Kernel>> modules; // module -> symbol -> kernel
};

std::vector<std::string> words(const std::string &line) {
  std::istringstream s(line);
  std::vector<std::string> out;
  for (std::string w; s >> w;)
    out.push_back(w);
  return out;
}

/// A line for a message: at most 80 bytes, anything but printable ASCII as \xNN.
std::string printable(const std::string &line) {
  std::string out;
  for (size_t i = 0; i < line.size() && i < 80; ++i) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

/// The one version line, exactly 'abi_version N' with N of 1 to 9 decimal digits.
std::string versionOf(const std::string &text, const std::string &label) {
  std::istringstream in(text);
  std::string version;
  size_t count = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("abi_version", 0) != 0)
      continue;
    ++count;
    const std::string value = line.size() > 12 && line[11] == ' ' ? line.substr(12) : "";
    if (value.empty() || value.size() > 9 || value.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument(label + " has a malformed version line '" + printable(line) +
                                  "' (expected 'abi_version N', N a decimal integer)");
    version = value;
  }
  if (count != 1)
    throw std::invalid_argument(label + " has " + std::to_string(count) +
                                " 'abi_version' lines (expected exactly one): it is empty, truncated or not an ABI "
                                "manifest");
  return version;
}

Parsed parse(const std::string &text, const std::string &label) {
  Parsed p;
  p.version = versionOf(text, label);
  std::istringstream in(text);
  std::string line, module;
  Kernel *kernel = nullptr;
  size_t number = 0;
  auto fail = [&](const std::string &why) {
    throw std::invalid_argument(label + " line " + std::to_string(number) + ": " + why);
  };
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#')
      continue;
    const std::vector<std::string> w = words(line);
    if (w.empty())
      continue;
    if (line[0] == ' ') {
      if (!kernel)
        fail("an indented line outside a kernel");
      if (w[0] == "arg")
        kernel->args.push_back(line);
      else
        kernel->details[w[0] == "buffer" && w.size() > 1 ? "buffer " + w[1] : w[0]] = line;
      continue;
    }
    if (line.rfind("abi_version", 0) == 0) {
      kernel = nullptr; // checked by versionOf
    } else if (w[0] == "struct" && w.size() >= 2) {
      p.structs[w[1]] = line;
      kernel = nullptr;
    } else if (w[0] == "enum" && w.size() >= 2) {
      for (size_t i = 2; i < w.size(); ++i) {
        const size_t eq = w[i].find('=');
        if (eq == std::string::npos)
          fail("enum value without '='");
        p.enums[w[1]][w[i].substr(0, eq)] = w[i].substr(eq + 1);
      }
      kernel = nullptr;
    } else if (w[0] == "module" && w.size() == 2) {
      module = w[1];
      p.modules[module];
      kernel = nullptr;
    } else if (w[0] == "kernel" && w.size() >= 2) {
      if (module.empty())
        fail("a kernel outside a module");
      kernel = &p.modules[module][w[1]];
      for (size_t i = 2; i < w.size(); ++i) {
        const size_t eq = w[i].find('=');
        if (eq == std::string::npos)
          fail("kernel attribute without '='");
        kernel->attributes[w[i].substr(0, eq)] = w[i].substr(eq + 1);
      }
    } else {
      fail("not a manifest line: '" + printable(line) + "'");
    }
  }
  return p;
}

class Comparer {
public:
  ManifestComparison result;
  void note(ChangeClass kind, const std::string &where, const std::string &what) {
    result.changes.push_back({kind, where, what});
    if (static_cast<int>(kind) > static_cast<int>(result.overall))
      result.overall = kind;
  }
  /// Keys only in `before`: removed (breaking); only in `after`: added (additive); in both and
  /// different: `changed` decides.
  template <typename Map, typename Changed>
  void compareMaps(const Map &before, const Map &after, const std::string &where, const char *what, Changed changed) {
    for (const auto &[key, value] : before) {
      auto it = after.find(key);
      if (it == after.end())
        note(ChangeClass::Breaking, where, std::string(what) + " " + key + " removed");
      else
        changed(key, value, it->second);
    }
    for (const auto &[key, value] : after)
      if (!before.count(key))
        note(ChangeClass::Additive, where, std::string(what) + " " + key + " added");
  }
};

} // namespace

long manifestVersion(const std::string &text, const std::string &label) { return std::stol(parse(text, label).version); }

ManifestComparison compareManifests(const std::string &oldText, const std::string &newText) {
  const Parsed before = parse(oldText, "old manifest"), after = parse(newText, "new manifest");
  Comparer c;
  if (before.version != after.version)
    c.note(ChangeClass::Breaking, "abi_version", before.version + " -> " + after.version);
  c.compareMaps(before.structs, after.structs, "tables", "struct", [&](const std::string &name, auto &a, auto &b) {
    if (a != b)
      c.note(ChangeClass::Breaking, "struct " + name, "layout changed: '" + a + "' -> '" + b + "'");
  });
  c.compareMaps(before.enums, after.enums, "enums", "enum", [&](const std::string &name, auto &a, auto &b) {
    c.compareMaps(a, b, "enum " + name, "value", [&](const std::string &v, auto &x, auto &y) {
      if (x != y)
        c.note(ChangeClass::Breaking, "enum " + name, "value " + v + " changed from " + x + " to " + y);
    });
  });
  c.compareMaps(before.modules, after.modules, "manifest", "module", [&](const std::string &module, auto &a, auto &b) {
    c.compareMaps(a, b, "module " + module, "kernel", [&](const std::string &symbol, const Kernel &x, const Kernel &y) {
      const std::string where = "kernel " + symbol + " (" + module + ")";
      c.compareMaps(x.attributes, y.attributes, where, "attribute", [&](const std::string &key, auto &u, auto &v) {
        if (u != v)
          c.note(ChangeClass::Breaking, where, "attribute " + key + " changed from " + u + " to " + v);
      });
      if (x.args != y.args)
        c.note(ChangeClass::Breaking, where,
               "arguments changed (" + std::to_string(x.args.size()) + " -> " + std::to_string(y.args.size()) +
                   "; reordered, renamed, retyped, added or removed)");
      c.compareMaps(x.details, y.details, where, "entry", [&](const std::string &key, auto &u, auto &v) {
        if (u != v)
          c.note(ChangeClass::Breaking, where, key + " changed: '" + u.substr(2) + "' -> '" + v.substr(2) + "'");
      });
    });
  });
  return c.result;
}

} // namespace tensorium_abi_probe
