// Study files: TOML through toml++ (Debian's libtomlplusplus), every key checked with its
// location before anything runs.
#include "tensorium_mlir/Verification/StudyFile.h"

#include "tensorium_mlir/Support/InputFile.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace tensorium_mlir::verification {

namespace {

std::string where(const toml::source_region &s, const std::string &fallbackPath) {
  const std::string file = s.path ? *s.path : fallbackPath;
  return file + ":" + std::to_string(s.begin.line ? s.begin.line : 1) + ":" +
         std::to_string(s.begin.column ? s.begin.column : 1);
}

/// The keys a study file may hold, by kind; "data.parameters.*" takes any name.
const std::set<std::string> &allowedKeys(const std::string &kind) {
  static const std::set<std::string> common{"study", "study.name", "study.description", "study.kind", "grid",
                                            "grid.resolutions", "grid.orders"};
  static const std::set<std::string> builtin = [] {
    std::set<std::string> k = common;
    k.insert("study.case");
    k.insert("verdict");
    k.insert("verdict.expected_order");
    return k;
  }();
  static const std::set<std::string> constraints = [] {
    std::set<std::string> k = common;
    for (const char *key : {"data", "data.source", "data.fixture", "data.parameters", "constraints", "constraints.fixture",
                            "grid.half_width", "norm", "norm.box", "norm.taper", "norm.centre", "norm.excision_centres",
                            "norm.excision", "norm.rise", "verdict", "verdict.expected_order", "verdict.tolerance",
                            "verdict.quantities"})
      k.insert(key);
    return k;
  }();
  static const std::set<std::string> testbed = [] {
    std::set<std::string> k = common;
    for (const char *key : {"study.test", "testbed", "testbed.amplitude", "testbed.rhos", "testbed.crossing_times",
                            "testbed.courant", "testbed.ko_sigma", "testbed.projection", "testbed.samples", "testbed.data_fixture",
                            "testbed.parameters", "testbed.compared", "testbed.gauge", "testbed.variables", "testbed.error_part", "verdict",
                            "verdict.expected_order", "verdict.tolerance", "verdict.growth_bound",
                            "verdict.error_bound"})
      k.insert(key);
    k.erase("grid.resolutions"); // the testbeds' resolutions are their rho values
    return k;
  }();
  static const std::set<std::string> elliptic = [] {
    std::set<std::string> k = common;
    for (const char *key : {"study.suite", "solver", "solver.preconditioner", "solver.configuration",
                            "solver.fourier_points"})
      k.insert(key);
    k.erase("grid.orders"); // spectral
    return k;
  }();
  static const std::set<std::string> problem = [] {
    std::set<std::string> k = common;
    for (const char *key : {"problem", "problem.fixture", "problem.block", "problem.parameters", "verdict",
                            "verdict.min_ratio", "verdict.tolerance", "verdict.exact_tolerance"})
      k.insert(key);
    k.erase("grid.orders"); // spectral
    return k;
  }();
  static const std::set<std::string> evolution = [] {
    std::set<std::string> k = common;
    for (const char *key : {"data", "data.source", "data.parameters", "grid.half_width", "evolution", "evolution.times",
                            "evolution.cfl", "evolution.ko_sigma", "evolution.eta", "evolution.fixture", "norm", "norm.box",
                            "norm.excision_centres", "norm.excision", "norm.spacing", "verdict", "verdict.expected_order",
                            "verdict.tolerance"})
      k.insert(key);
    return k;
  }();
  static const std::set<std::string> spacetime = [] {
    std::set<std::string> k{"study", "study.name", "study.description", "study.kind"};
    for (const char *key : {"spacetime", "spacetime.fixture", "spacetime.parameters", "spacetime.claims", "sample",
                            "sample.times", "sample.box", "sample.count", "sample.excision_centres", "sample.excision",
                            "grid", "grid.steps", "grid.order", "verdict", "verdict.tolerance"})
      k.insert(key);
    return k;
  }();
  static const std::set<std::string> system = [] {
    std::set<std::string> k = common;
    for (const char *key : {"system", "system.fixture", "system.parameters", "system.final_time", "system.cfl",
                            "system.compare", "grid.half_width", "norm", "norm.spacing", "verdict",
                            "verdict.expected_order", "verdict.tolerance"})
      k.insert(key);
    return k;
  }();
  if (kind == "system")
    return system;
  return kind == "case"        ? builtin
         : kind == "testbed"   ? testbed
         : kind == "elliptic"  ? elliptic
         : kind == "problem"   ? problem
         : kind == "spacetime" ? spacetime
         : kind == "evolution" ? evolution
                               : constraints;
}

struct KeyValue {
  std::string key, location;
  const toml::node *value;
};

/// The one conversion of a TOML number to double: a float must be finite, an integer exactly
/// representable (above 2^53 not every integer is). Returns the reason when it is refused.
std::optional<double> exactDouble(const toml::node &n, std::string &reason) {
  if (const auto *f = n.as_floating_point()) {
    if (std::isfinite(f->get()))
      return f->get();
    reason = "expected a finite number";
    return std::nullopt;
  }
  if (const auto *i = n.as_integer()) {
    const int64_t v = i->get();
    const double d = static_cast<double>(v);
    // 2^63 is the first double past int64's range; below it the round trip is exact or not.
    if (d < 9223372036854775808.0 && static_cast<int64_t>(d) == v)
      return d;
    reason = "the integer " + std::to_string(v) + " is not exactly representable as a double (nearest " +
             std::to_string(d) + "); write the value intended as a float";
    return std::nullopt;
  }
  reason = "expected a number";
  return std::nullopt;
}

/// A study file and its overrides: values by dotted key, overrides first.
class Source {
public:
  Source(std::string path, const std::string &text, const std::vector<std::string> &overrides) : path_(std::move(path)) {
    try {
      root_ = toml::parse(text, path_);
    } catch (const toml::parse_error &e) {
      throw StudyFileError(where(e.source(), path_) + ": error: " + std::string(e.description()));
    }
    for (const std::string &o : overrides) {
      const size_t eq = o.find('=');
      if (eq == std::string::npos || eq == 0)
        throw StudyFileError("--set " + o + ": error: expected key=value (a TOML value, e.g. grid.resolutions=[33,41,49])");
      const std::string key = o.substr(0, eq);
      auto table = std::make_unique<toml::table>();
      try {
        *table = toml::parse(key + " = " + o.substr(eq + 1), "--set " + o);
      } catch (const toml::parse_error &e) {
        throw StudyFileError(where(e.source(), "--set " + o) + ": error: " + std::string(e.description()));
      }
      const toml::node *value = table->at_path(key).node();
      if (!value)
        throw StudyFileError("--set " + o + ": error: cannot read key '" + key + "'");
      overrideNodes_[key] = value;
      overrideTables_.push_back(std::move(table));
    }
  }

  /// The value of a dotted key: an override of the key itself or of an enclosing table (which
  /// replaces the file's whole table), else the file's. An override that sets an enclosing key
  /// to a non-table value hides the keys below it; the schema check refuses it.
  const toml::node *get(const std::string &key) const {
    for (std::string k = key;;) {
      auto it = overrideNodes_.find(k);
      if (it != overrideNodes_.end()) {
        if (k == key)
          return it->second;
        const toml::table *t = it->second->as_table();
        return t ? t->at_path(key.substr(k.size() + 1)).node() : nullptr;
      }
      const size_t dot = k.rfind('.');
      if (dot == std::string::npos)
        break;
      k = k.substr(0, dot);
    }
    return root_.at_path(key).node();
  }

  /// Overrides of keys directly under `table` ("table.name"), by name.
  std::vector<std::pair<std::string, const toml::node *>> overridesUnder(const std::string &table) const {
    std::vector<std::pair<std::string, const toml::node *>> out;
    for (const auto &[key, node] : overrideNodes_)
      if (key.size() > table.size() + 1 && key.rfind(table + ".", 0) == 0 &&
          key.find('.', table.size() + 1) == std::string::npos)
        out.push_back({key.substr(table.size() + 1), node});
    return out;
  }

  /// FILE:LINE:COL of a key, of the closest enclosing table that exists, or of the file.
  std::string locate(const std::string &key) const {
    std::string k = key;
    while (!k.empty()) {
      if (const toml::node *n = get(k))
        return where(n->source(), path_);
      const size_t dot = k.rfind('.');
      k = dot == std::string::npos ? "" : k.substr(0, dot);
    }
    return path_ + ":1:1";
  }

  /// Every dotted key of the file and the overrides with its location and value.
  void keys(std::vector<KeyValue> &out) const {
    walk(root_, "", out);
    for (const auto &[key, node] : overrideNodes_) {
      out.push_back({key, where(node->source(), path_), node});
      if (const toml::table *t = node->as_table())
        walk(*t, key, out);
    }
  }

private:
  void walk(const toml::table &t, const std::string &prefix, std::vector<KeyValue> &out) const {
    for (auto &&[k, v] : t) {
      const std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
      out.push_back({key, where(k.source(), path_), &v});
      if (key == "data.parameters" || key == "testbed.parameters" || key == "spacetime.parameters")
        continue; // free-form parameter names, checked against the fixture
      if (const toml::table *sub = v.as_table())
        walk(*sub, key, out);
    }
  }

  std::string path_;
  toml::table root_;
  std::vector<std::unique_ptr<toml::table>> overrideTables_;
  std::map<std::string, const toml::node *> overrideNodes_;
};

class Reader {
public:
  Reader(const Source &source, StudyFile &study) : source_(source), study_(study) {}

  [[noreturn]] void fail(const std::string &key, const std::string &message) const {
    throw StudyFileError(source_.locate(key) + ": error: key '" + key + "': " + message);
  }
  const toml::node *get(const std::string &key) const {
    const toml::node *n = source_.get(key);
    if (n)
      study_.locations[key] = source_.locate(key);
    return n;
  }
  const toml::node &required(const std::string &key) const {
    const toml::node *n = get(key);
    if (!n)
      fail(key, "missing (required)");
    return *n;
  }
  std::string string(const std::string &key, const std::string &fallback, bool needed = false) const {
    const toml::node *n = needed ? &required(key) : get(key);
    if (!n)
      return fallback;
    if (!n->is_string())
      fail(key, "expected a string");
    return *n->value<std::string>();
  }
  /// A number at `key` (node `n`), through exactDouble.
  double toDouble(const toml::node &n, const std::string &key) const {
    std::string reason;
    const std::optional<double> v = exactDouble(n, reason);
    if (!v)
      fail(key, reason);
    return *v;
  }
  double number(const std::string &key, double fallback, bool needed = false) const {
    const toml::node *n = needed ? &required(key) : get(key);
    return n ? toDouble(*n, key) : fallback;
  }
  std::vector<double> numbers(const toml::node &n, const std::string &key, size_t minimum, size_t maximum) const {
    const toml::array *a = n.as_array();
    if (!a)
      fail(key, "expected an array of numbers");
    std::vector<double> out;
    for (const toml::node &e : *a) {
      std::string reason;
      const std::optional<double> v = exactDouble(e, reason);
      if (!v)
        fail(key, "in the array: " + reason);
      out.push_back(*v);
    }
    if (out.size() < minimum || out.size() > maximum)
      fail(key, minimum == maximum ? "expected " + std::to_string(minimum) + " numbers"
                                   : "expected " + std::to_string(minimum) + " to " + std::to_string(maximum) + " numbers");
    return out;
  }
  std::vector<int> integers(const std::string &key, long lo, long hi) const {
    const toml::node *n = get(key);
    if (!n)
      return {};
    const toml::array *a = n->as_array();
    if (!a || a->empty())
      fail(key, "expected a non-empty array of integers");
    std::vector<int> out;
    for (const toml::node &e : *a) {
      if (!e.is_integer())
        fail(key, "expected an array of integers");
      const int64_t v = *e.value<int64_t>();
      if (v < lo || v > hi)
        fail(key, std::to_string(v) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
      out.push_back(static_cast<int>(v));
    }
    return out;
  }
  /// The entries of a free-form table (parameters): the table's own, then single-key overrides.
  std::vector<std::pair<std::string, const toml::node *>> entries(const std::string &key) const {
    std::vector<std::pair<std::string, const toml::node *>> out;
    if (const toml::node *n = get(key)) {
      const toml::table *t = n->as_table();
      if (!t)
        fail(key, "expected a table (name = value)");
      for (auto &&[k, v] : *t)
        out.push_back({std::string(k.str()), &v});
    }
    for (const auto &[name, node] : source_.overridesUnder(key)) {
      auto it = std::find_if(out.begin(), out.end(), [&](const auto &e) { return e.first == name; });
      if (it != out.end())
        it->second = node;
      else
        out.push_back({name, node});
    }
    for (const auto &[name, node] : out)
      get(key + "." + name);
    return out;
  }

  std::array<double, 3> point(const toml::node &n, const std::string &key) const {
    const std::vector<double> v = numbers(n, key, 3, 3);
    return {v[0], v[1], v[2]};
  }
  /// An array of points [[x, y, z], ...] at `key`; empty when the key is absent.
  std::vector<std::array<double, 3>> points(const std::string &key) const {
    std::vector<std::array<double, 3>> out;
    if (const toml::node *e = get(key)) {
      const toml::array *a = e->as_array();
      if (!a)
        fail(key, "expected an array of points [[x, y, z], ...]");
      for (const toml::node &c : *a)
        out.push_back(point(c, key));
    }
    return out;
  }

private:
  const Source &source_;
  StudyFile &study_;
};

void checkIncreasing(const Reader &r, const std::string &key, const std::vector<int> &v) {
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i] <= v[i - 1])
      r.fail(key, "must increase (" + std::to_string(v[i - 1]) + " then " + std::to_string(v[i]) + ")");
}

void checkOrders(const Reader &r, const std::string &key, const std::vector<int> &orders, int maximum) {
  for (int p : orders)
    if (p % 2 || p < 2 || p > maximum)
      r.fail(key, "finite-difference orders are even, 2 to " + std::to_string(maximum) + " (got " + std::to_string(p) + ")");
  std::vector<int> sorted = orders;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    r.fail(key, "an order is listed twice");
}

/// grid.resolutions: required, at least three, increasing, each in [lo, hi].
std::vector<int> requiredResolutions(const Reader &r, long lo, long hi, const std::string &what) {
  std::vector<int> resolutions = r.integers("grid.resolutions", lo, hi);
  if (resolutions.empty())
    r.required("grid.resolutions");
  if (resolutions.size() < 3)
    r.fail("grid.resolutions", what + " needs at least three resolutions");
  checkIncreasing(r, "grid.resolutions", resolutions);
  return resolutions;
}

/// verdict.expected_order ("fd": 0, each finite-difference order) and verdict.tolerance.
void readOrderVerdict(const Reader &r, int &expectedOrder, double &tolerance) {
  if (const toml::node *e = r.get("verdict.expected_order")) {
    if (e->is_string() && *e->value<std::string>() == "fd")
      expectedOrder = 0;
    else if (e->is_integer() && *e->value<int64_t>() > 0 && *e->value<int64_t>() <= 32)
      expectedOrder = static_cast<int>(*e->value<int64_t>());
    else
      r.fail("verdict.expected_order", "expected \"fd\" (each finite-difference order) or a positive integer");
  }
  tolerance = r.number("verdict.tolerance", 0.3);
  if (!(tolerance > 0) || tolerance >= 1)
    r.fail("verdict.tolerance", "must be in (0, 1): a tolerance of 1 or more cannot tell order p from p - 1");
}

std::string resolvePath(const std::string &studyPath, const std::string &path) {
  if (path.empty() || path[0] == '/')
    return path;
  return (std::filesystem::path(studyPath).parent_path() / path).lexically_normal().string();
}

/// The fixture a key names, relative to the study file, checked as an input file.
std::string fixtureAt(const Reader &r, const StudyFile &s, const std::string &key) {
  const std::string path = resolvePath(s.path, r.string(key, "", true));
  if (const std::string problem = support::inputFileProblem(path); !problem.empty())
    r.fail(key, "cannot read fixture file '" + path + "': " + problem);
  return path;
}

/// kind = "spacetime": a metric4 fixture, the events to sample, the steps and the claims.
void readSpacetimeStudy(const Reader &r, StudyFile &s) {
  s.spacetimeFixture = fixtureAt(r, s, "spacetime.fixture");
  for (const auto &[name, v] : r.entries("spacetime.parameters"))
    s.spacetimeParameters.push_back({name, r.toDouble(*v, "spacetime.parameters." + name)});
  const toml::array *claims = r.required("spacetime.claims").as_array();
  if (!claims || claims->empty())
    r.fail("spacetime.claims", "expected a non-empty array of claims (\"vacuum\", \"harmonic\")");
  s.claimsVacuum = s.claimsHarmonic = false;
  for (const toml::node &c : *claims) {
    const std::optional<std::string> v = c.value<std::string>();
    if (v && *v == "vacuum")
      s.claimsVacuum = true;
    else if (v && *v == "harmonic")
      s.claimsHarmonic = true;
    else
      r.fail("spacetime.claims", "a claim is \"vacuum\" (R_ab = 0) or \"harmonic\" (box x^mu = 0)");
  }
  s.sampleTimes = r.numbers(r.required("sample.times"), "sample.times", 1, 64);
  const toml::array *box = r.required("sample.box").as_array();
  if (!box || box->size() != 2)
    r.fail("sample.box", "expected [[lo_x, lo_y, lo_z], [hi_x, hi_y, hi_z]]");
  s.sampleLo = r.point(*box->get(0), "sample.box");
  s.sampleHi = r.point(*box->get(1), "sample.box");
  for (size_t a = 0; a < 3; ++a)
    if (!(s.sampleHi[a] > s.sampleLo[a]))
      r.fail("sample.box", "hi must exceed lo along every axis");
  const double count = r.number("sample.count", 16);
  if (!(count >= 1 && count <= 4096) || count != std::floor(count))
    r.fail("sample.count", "expected an integer in [1, 4096]");
  s.sampleCount = static_cast<int>(count);
  s.sampleCentres = r.points("sample.excision_centres");
  s.sampleExcision = r.number("sample.excision", 0);
  if (s.sampleExcision < 0)
    r.fail("sample.excision", "must not be negative");
  s.steps = r.numbers(r.required("grid.steps"), "grid.steps", 2, 16);
  for (size_t i = 0; i < s.steps.size(); ++i)
    if (!(s.steps[i] > 0) || s.steps[i] > 1 || (i && s.steps[i] >= s.steps[i - 1]))
      r.fail("grid.steps", "expected decreasing steps in (0, 1]");
  const double order = r.number("grid.order", 4);
  if (order != 2 && order != 4 && order != 6)
    r.fail("grid.order", "the spacetime check's stencils have order 2, 4 or 6");
  s.spacetimeOrder = static_cast<int>(order);
  s.tolerance = r.number("verdict.tolerance", 0.5);
  if (!(s.tolerance > 0) || s.tolerance >= 1)
    r.fail("verdict.tolerance", "must be in (0, 1): a tolerance of 1 or more cannot tell order p from p - 1");
}

/// data.parameters of two-puncture data: b, m1, m2 (positive), P1, P2, S1, S2 (vectors).
void readPunctureParameters(const Reader &r, physics::TwoPunctureParameters &p) {
  for (const auto &[name, node] : r.entries("data.parameters")) {
    const toml::node &v = *node;
    const std::string key = "data.parameters." + name;
    if (name == "b" || name == "m1" || name == "m2") {
      const double x = r.number(key, 0, true);
      if (!(x > 0))
        r.fail(key, "must be positive");
      (name == "b" ? p.b : name == "m1" ? p.m1 : p.m2) = x;
    } else if (name == "P1" || name == "P2" || name == "S1" || name == "S2") {
      const auto x = r.point(v, key);
      (name == "P1" ? p.P1 : name == "P2" ? p.P2 : name == "S1" ? p.S1 : p.S2) = x;
    } else {
      r.fail(key, "unknown two-puncture parameter (b, m1, m2, P1, P2, S1, S2)");
    }
  }
}

/// kind = "evolution": two-puncture data evolved at three resolutions.
void readEvolutionStudy(const Reader &r, StudyFile &s) {
  s.dataSource = r.string("data.source", "", true);
  if (s.dataSource != "two-puncture")
    r.fail("data.source", "an evolution study evolves two-puncture data (data.source = \"two-puncture\")");
  readPunctureParameters(r, s.punctures);
  s.halfWidth = r.number("grid.half_width", 8.0);
  if (!(s.halfWidth > 0))
    r.fail("grid.half_width", "must be positive");
  s.resolutions = requiredResolutions(r, 12, 400, "a self-convergence study");
  if (s.resolutions.size() != 3)
    r.fail("grid.resolutions", "self-convergence takes exactly three resolutions");
  s.orders = r.integers("grid.orders", 2, 6);
  if (s.orders.empty())
    s.orders = {4};
  checkOrders(r, "grid.orders", s.orders, 6);
  if (s.orders.size() != 1)
    r.fail("grid.orders", "an evolution study runs one finite-difference order");
  s.evolutionTimes = r.numbers(r.required("evolution.times"), "evolution.times", 1, 16);
  for (size_t i = 0; i < s.evolutionTimes.size(); ++i)
    if (!(s.evolutionTimes[i] > 0) || (i && s.evolutionTimes[i] <= s.evolutionTimes[i - 1]) || s.evolutionTimes[i] > 1000)
      r.fail("evolution.times", "expected increasing times in (0, 1000]");
  s.cfl = r.number("evolution.cfl", 0.25);
  if (!(s.cfl > 0 && s.cfl <= 1))
    r.fail("evolution.cfl", "must be in (0, 1]");
  s.koSigma = r.number("evolution.ko_sigma", 0.1);
  s.eta = r.number("evolution.eta", 2.0);
  if (r.get("evolution.fixture"))
    s.evolutionFixture = fixtureAt(r, s, "evolution.fixture");
  if (s.koSigma < 0 || s.koSigma > 1)
    r.fail("evolution.ko_sigma", "must be in [0, 1]");
  NormRegion &region = s.region;
  region.box = r.number("norm.box", 0, true);
  if (!(region.box > 0) || region.box >= s.halfWidth)
    r.fail("norm.box", "must be positive and inside the grid (below grid.half_width)");
  region.excision = r.number("norm.excision", 0);
  if (region.excision < 0)
    r.fail("norm.excision", "must not be negative");
  region.excisionCentres = r.points("norm.excision_centres");
  s.probeSpacing = r.number("norm.spacing", 0.5);
  if (!(s.probeSpacing > 0))
    r.fail("norm.spacing", "must be positive");
  readOrderVerdict(r, s.expectedOrder, s.tolerance);
  if (!r.get("verdict.tolerance"))
    s.tolerance = 0.5;
}

/// kind = "system": a fixture's own system evolved at three resolutions.
void readSystemStudy(const Reader &r, StudyFile &s) {
  s.systemFixture = fixtureAt(r, s, "system.fixture");
  for (const auto &[name, v] : r.entries("system.parameters")) {
    if (name == "t")
      r.fail("system.parameters.t", "t is the evolution's time, not a parameter");
    s.systemParameters.push_back({name, r.toDouble(*v, "system.parameters." + name)});
  }
  s.finalTime = r.number("system.final_time", 0, true);
  if (!(s.finalTime > 0) || s.finalTime > 1000)
    r.fail("system.final_time", "must be in (0, 1000]");
  s.cfl = r.number("system.cfl", 0.25);
  if (!(s.cfl > 0 && s.cfl <= 1))
    r.fail("system.cfl", "must be in (0, 1]");
  s.systemCompare = r.string("system.compare", "exact");
  if (s.systemCompare != "exact" && s.systemCompare != "self")
    r.fail("system.compare", "expected \"exact\" (the fixture's initial_data at the final time) or \"self\" "
                             "(self-convergence at probe points)");
  s.halfWidth = r.number("grid.half_width", 1.0);
  if (!(s.halfWidth > 0))
    r.fail("grid.half_width", "must be positive");
  s.resolutions = requiredResolutions(r, 4, 400, "a convergence study");
  if (s.resolutions.size() != 3)
    r.fail("grid.resolutions", "a system study takes exactly three resolutions");
  s.orders = r.integers("grid.orders", 2, 8);
  if (s.orders.empty())
    s.orders = {4};
  checkOrders(r, "grid.orders", s.orders, 8);
  if (s.orders.size() != 1)
    r.fail("grid.orders", "a system study runs one finite-difference order");
  s.probeSpacing = r.number("norm.spacing", s.halfWidth / 4);
  if (!(s.probeSpacing > 0))
    r.fail("norm.spacing", "must be positive");
  readOrderVerdict(r, s.expectedOrder, s.tolerance);
}

void readConstraintStudy(const Reader &r, StudyFile &s) {
  s.dataSource = r.string("data.source", "", true);
  if (s.dataSource == "fixture") {
    s.dataFixture = fixtureAt(r, s, "data.fixture");
    for (const auto &[name, v] : r.entries("data.parameters"))
      s.dataParameters.push_back({name, r.toDouble(*v, "data.parameters." + name)});
  } else if (s.dataSource == "two-puncture") {
    if (r.get("data.fixture"))
      r.fail("data.fixture", "two-puncture data are solved by the built-in spectral solver, not from a fixture");
    readPunctureParameters(r, s.punctures);
  } else {
    r.fail("data.source", "'" + s.dataSource + "' is not a data source (fixture, two-puncture)");
  }
  s.constraintsFixture = fixtureAt(r, s, "constraints.fixture");

  s.halfWidth = r.number("grid.half_width", 2.5);
  if (!(s.halfWidth > 0))
    r.fail("grid.half_width", "must be positive");
  s.resolutions = requiredResolutions(r, 9, 2000, "a constraint study");
  s.orders = r.integers("grid.orders", 2, 16);
  if (s.orders.empty())
    s.orders = {4};
  checkOrders(r, "grid.orders", s.orders, 16);

  NormRegion &region = s.region;
  region.box = r.number("norm.box", 0, true);
  region.taper = r.number("norm.taper", 0.4);
  region.excision = r.number("norm.excision", 0);
  region.rise = r.number("norm.rise", 0.3);
  if (const toml::node *c = r.get("norm.centre"))
    region.centre = r.point(*c, "norm.centre");
  if (!(region.box > 0))
    r.fail("norm.box", "must be positive");
  if (region.taper < 0 || region.taper >= region.box)
    r.fail("norm.taper", "must be in [0, norm.box)");
  if (region.excision < 0 || region.rise < 0)
    r.fail(region.excision < 0 ? "norm.excision" : "norm.rise", "must not be negative");
  for (size_t a = 0; a < 3; ++a)
    if (std::abs(region.centre[a]) + region.box > s.halfWidth + 1e-12)
      r.fail("norm.box", "the norm region reaches outside the grid (|centre| + box > grid.half_width = " +
                             std::to_string(s.halfWidth) + ")");
  region.excisionCentres = r.points("norm.excision_centres");
  if (!region.excisionCentres.empty() && !(region.excision > 0))
    r.fail("norm.excision", "excision centres need a positive excision radius");
  // Every resolution keeps weighted points (checked on the grid's points).
  for (int n : s.resolutions)
    if (!region.holdsPointOf(cube(n, s.halfWidth)))
      r.fail("norm.box", "the norm region holds no grid point at resolution " + std::to_string(n));

  readOrderVerdict(r, s.expectedOrder, s.tolerance);
  if (const toml::node *q = r.get("verdict.quantities")) {
    const toml::array *a = q->as_array();
    if (!a || a->empty())
      r.fail("verdict.quantities", "expected a non-empty array of \"H\" and \"M\"");
    s.quantities.clear();
    for (const toml::node &e : *a) {
      const std::string v = e.is_string() ? *e.value<std::string>() : "";
      if (v != "H" && v != "M")
        r.fail("verdict.quantities", "the compared quantities are \"H\" (Hamiltonian) and \"M\" (|momentum|)");
      s.quantities.push_back(v);
    }
    if (std::find(s.quantities.begin(), s.quantities.end(), "H") == s.quantities.end())
      r.fail("verdict.quantities", "\"H\" is always compared");
  }
}

void readTestbed(const Reader &r, StudyFile &s) {
  TestbedStudy &t = s.testbed;
  t.name = s.name;
  t.description = s.description;
  t.test = r.string("study.test", "", true);
  if (std::find(testbedNames().begin(), testbedNames().end(), t.test) == testbedNames().end())
    r.fail("study.test", "'" + t.test + "' is not a testbed (robust-stability, linear-wave, gauge-wave, exact-solution)");
  const bool fromFixture = t.test == "exact-solution";
  if (fromFixture) {
    if (r.get("testbed.amplitude"))
      r.fail("testbed.amplitude", "an exact-solution testbed takes its amplitude from testbed.parameters");
    s.testbedFixture = fixtureAt(r, s, "testbed.data_fixture");
    for (const auto &[name, v] : r.entries("testbed.parameters")) {
      const std::string key = "testbed.parameters." + name;
      const double value = r.toDouble(*v, key);
      if (name == "t")
        r.fail(key, "t is the evolution's time, set by the testbed");
      s.testbedParameters.push_back({name, value});
    }
    t.amplitude = 1; // unused
  } else {
    for (const char *key : {"testbed.data_fixture", "testbed.parameters"})
      if (r.get(key))
        r.fail(key, "only an exact-solution testbed reads a data fixture");
    t.amplitude = r.number("testbed.amplitude", 0, true);
    if (!(t.amplitude > 0) || t.amplitude >= 1)
      r.fail("testbed.amplitude", "must be in (0, 1)");
  }
  // The BSSN module family: harmonic slicing with a frozen shift (the published tests with zero
  // shift) or full harmonic gauge, lapse and shift (the shifted gauge wave).
  const std::string gauge = r.string("testbed.gauge", "harmonic");
  if (gauge == "harmonic")
    t.moduleKind = "bssn_harmonic";
  else if (gauge == "harmonic_shift")
    t.moduleKind = "bssn_harmonic_shift";
  else
    r.fail("testbed.gauge", "expected \"harmonic\" (harmonic slicing, frozen shift) or \"harmonic_shift\" (harmonic "
                            "lapse and shift), got '" + gauge + "'");
  // Stored variables: the BSSN fields themselves, or chi, gammatilde_ij and alpha as deviations
  // from flat space (full relative precision for waves of small amplitude).
  const std::string variables = r.string("testbed.variables", "full");
  if (variables == "deviation") {
    t.deviation = true;
    if (gauge != "harmonic")
      r.fail("testbed.variables", "the deviation form exists for the harmonic slicing with frozen shift "
                                  "(testbed.gauge = \"harmonic\"), not for '" + gauge + "'");
    else if (fromFixture)
      r.fail("testbed.variables", "an exact-solution testbed's slice kernel gives the full variables; use \"full\"");
    else
      t.moduleKind = "bssn_harmonic_deviation";
  } else if (variables != "full")
    r.fail("testbed.variables", "expected \"full\" (the BSSN variables) or \"deviation\" (chi - 1, gammatilde_ij - "
                                "delta_ij, alpha - 1), got '" + variables + "'");
  const std::string part = r.string("testbed.error_part", "all");
  if (part == "odd_harmonics") {
    t.oddHarmonics = true;
    if (t.test != "linear-wave")
      r.fail("testbed.error_part", "the odd harmonics separate the linear wave's linear response; '" + t.test +
                                      "' is judged on its whole error");
  } else if (part != "all")
    r.fail("testbed.error_part", "expected \"all\" or \"odd_harmonics\", got '" + part + "'");
  t.compared = r.string("testbed.compared", "");
  if (!t.compared.empty()) {
    const std::string &c = t.compared;
    if (t.test == "robust-stability" || c.size() != 8 || c.rfind("gamma_", 0) != 0 || c[6] < 'x' || c[6] > 'z' ||
        c[7] < 'x' || c[7] > 'z')
      r.fail("testbed.compared", "expected a metric component gamma_ij with i, j in x, y, z (wave and exact-solution tests)");
  }
  if (const std::vector<int> rhos = r.integers("testbed.rhos", 1, 64); !rhos.empty())
    t.rhos = rhos;
  checkIncreasing(r, "testbed.rhos", t.rhos);
  if (t.rhos.size() < 2)
    r.fail("testbed.rhos", t.test == "robust-stability"
                               ? "the robust-stability verdict compares the finest rho with the coarsest: at least two values"
                               : "a convergence test needs at least two values of rho");
  t.crossingTimes = r.number("testbed.crossing_times", 1);
  if (!(t.crossingTimes > 0) || t.crossingTimes > 1e4)
    r.fail("testbed.crossing_times", "must be in (0, 10000]");
  t.courant = r.number("testbed.courant", 0.25);
  if (!(t.courant > 0) || t.courant > 1)
    r.fail("testbed.courant", "must be in (0, 1]");
  t.koSigma = r.number("testbed.ko_sigma", 0);
  if (t.koSigma < 0 || t.koSigma > 1)
    r.fail("testbed.ko_sigma", "must be in [0, 1]");
  if (const toml::node *n = r.get("testbed.projection")) {
    if (!n->is_boolean())
      r.fail("testbed.projection", "expected true or false");
    t.projection = *n->value<bool>();
  }
  if (const toml::node *n = r.get("testbed.samples")) {
    if (!n->is_integer() || *n->value<int64_t>() < 1 || *n->value<int64_t>() > 1000)
      r.fail("testbed.samples", "expected an integer in [1, 1000]");
    t.samples = static_cast<int>(*n->value<int64_t>());
  }
  if (const std::vector<int> orders = r.integers("grid.orders", 2, 6); !orders.empty())
    t.orders = orders;
  checkOrders(r, "grid.orders", t.orders, 6);
  readOrderVerdict(r, t.expectedOrder, t.tolerance);
  t.errorBound = r.number("verdict.error_bound", 0);
  if (t.errorBound < 0 || (t.errorBound > 0 && t.test == "robust-stability"))
    r.fail("verdict.error_bound", "a non-negative bound on max |error| / A, for the wave tests");
  t.growthBound = r.number("verdict.growth_bound", 10);
  if (!(t.growthBound >= 1))
    r.fail("verdict.growth_bound", "must be at least 1");
}

} // namespace

std::string StudyFile::locate(const std::string &key) const {
  for (std::string k = key; !k.empty();) {
    auto it = locations.find(k);
    if (it != locations.end())
      return it->second;
    const size_t dot = k.rfind('.');
    k = dot == std::string::npos ? "" : k.substr(0, dot);
  }
  return path + ":1:1";
}

void StudyFile::fail(const std::string &key, const std::string &message) const {
  throw StudyFileError(locate(key) + ": error: key '" + key + "': " + message);
}

StudyFile loadStudyFile(const std::string &path, const std::vector<std::string> &overrides) {
  std::string text, problem;
  if (!support::readInputFile(path, text, problem))
    throw StudyFileError(path + ": error: cannot read the study file: " + problem);
  const Source source(path, text, overrides);
  StudyFile s;
  s.path = path;
  const Reader r(source, s);
  s.kind = r.string("study.kind", "", true);
  if (s.kind != "case" && s.kind != "constraints" && s.kind != "testbed" && s.kind != "elliptic" && s.kind != "problem" &&
      s.kind != "spacetime" && s.kind != "evolution" && s.kind != "system")
    r.fail("study.kind", "'" + s.kind +
                             "' is not a study kind (case, constraints, testbed, elliptic, problem, spacetime, evolution, "
                             "system)");
  std::vector<KeyValue> keys;
  source.keys(keys);
  const std::set<std::string> &allowed = allowedKeys(s.kind);
  for (const auto &[key, at, value] : keys) {
    if (!allowed.count(key) && !((key.rfind("data.parameters.", 0) == 0 && allowed.count("data.parameters")) ||
                                 (key.rfind("problem.parameters.", 0) == 0 && allowed.count("problem.parameters")) ||
                                 (key.rfind("testbed.parameters.", 0) == 0 && allowed.count("testbed.parameters")) ||
                                 (key.rfind("system.parameters.", 0) == 0 && allowed.count("system.parameters")) ||
                                 (key.rfind("spacetime.parameters.", 0) == 0 && allowed.count("spacetime.parameters"))))
      throw StudyFileError(at + ": error: key '" + key + "': unknown key for a study of kind '" + s.kind + "'");
    // A table of the schema (grid, verdict, data.parameters, ...) set to a plain value would
    // hide every key below it.
    const auto below = allowed.lower_bound(key + ".");
    const bool table = (below != allowed.end() && below->rfind(key + ".", 0) == 0) ||
                       (key.size() > 11 && key.substr(key.size() - 11) == ".parameters");
    if (table && !value->is_table())
      throw StudyFileError(at + ": error: key '" + key + "': expected a table (" + key + ".name = value)");
  }
  s.name = r.string("study.name", "", true);
  if (s.name.empty() || s.name.find_first_of(" \t\n/") != std::string::npos)
    r.fail("study.name", "expected a non-empty name without spaces or slashes");
  s.description = r.string("study.description", "");
  if (s.kind == "case") {
    s.builtinCase = r.string("study.case", "", true);
    if (!isBuiltinCase(s.builtinCase))
      r.fail("study.case", "'" + s.builtinCase + "' is not a built-in case");
    s.caseOptions.resolutions = r.integers("grid.resolutions", 9, 2000);
    checkIncreasing(r, "grid.resolutions", s.caseOptions.resolutions);
    if (!s.caseOptions.resolutions.empty() && s.caseOptions.resolutions.size() < minimumResolutions(s.builtinCase))
      r.fail("grid.resolutions", "case " + s.builtinCase + " needs at least " +
                                     std::to_string(minimumResolutions(s.builtinCase)) + " resolutions");
    const std::vector<int> orders = r.integers("grid.orders", 2, 6);
    checkOrders(r, "grid.orders", orders, 6);
    if (!orders.empty())
      s.caseOptions.orders = orders;
    double tolerance = 0;
    readOrderVerdict(r, s.caseOptions.expectedOrder, tolerance);
  } else if (s.kind == "testbed") {
    readTestbed(r, s);
  } else if (s.kind == "spacetime") {
    readSpacetimeStudy(r, s);
  } else if (s.kind == "evolution") {
    readEvolutionStudy(r, s);
  } else if (s.kind == "system") {
    readSystemStudy(r, s);
  } else if (s.kind == "elliptic") {
    // Names are checked by the tool that knows its suites and preconditioners.
    s.suite = r.string("study.suite", "", true);
    s.resolutions = requiredResolutions(r, 3, 100000, "a convergence study");
    s.preconditioner = r.string("solver.preconditioner", "none");
    s.configuration = r.string("solver.configuration", "both");
    if (const toml::node *n = r.get("solver.fourier_points")) {
      if (!n->is_integer() || *n->value<int64_t>() < 1 || *n->value<int64_t>() > 100000)
        r.fail("solver.fourier_points", "expected an integer in [1, 100000]");
      s.fourierPoints = static_cast<int>(*n->value<int64_t>());
    }
  } else if (s.kind == "problem") {
    // A problem declared in a .tn file (tensorium-converge): self-convergence across resolutions.
    s.problemFixture = fixtureAt(r, s, "problem.fixture");
    s.problemBlock = r.string("problem.block", "");
    for (const auto &[name, v] : r.entries("problem.parameters"))
      s.problemParameters.push_back({name, r.toDouble(*v, "problem.parameters." + name)});
    s.resolutions = requiredResolutions(r, 3, 512, "a self-convergence study");
    if (s.resolutions.size() < 3)
      r.fail("grid.resolutions", "self-convergence needs at least 3 resolutions (2 differences)");
    s.minRatio = r.number("verdict.min_ratio", 10.0);
    if (!(s.minRatio > 1))
      r.fail("verdict.min_ratio", "must be above 1 (each difference that much smaller than the previous)");
    s.tolerance = r.number("verdict.tolerance", 1e-8);
    if (!(s.tolerance > 0) || s.tolerance > 1e-2)
      r.fail("verdict.tolerance", "must be in (0, 1e-2]: a larger difference is no converged solution");
    s.exactTolerance = r.number("verdict.exact_tolerance", s.tolerance);
    if (!(s.exactTolerance > 0) || s.exactTolerance > 1e-2)
      r.fail("verdict.exact_tolerance", "must be in (0, 1e-2]: a larger error is no converged solution");
  } else {
    readConstraintStudy(r, s);
  }
  return s;
}

std::vector<double> parametersInModuleOrder(const StudyFile &study, const std::string &key,
                                            const std::vector<std::pair<std::string, double>> &given,
                                            const std::vector<std::string> &names, const std::string &fixture,
                                            int *timeIndex) {
  for (const auto &[name, value] : given)
    if (std::find(names.begin(), names.end(), name) == names.end())
      study.fail(key + "." + name, fixture + " declares no parameter '" + name + "'");
  if (timeIndex)
    *timeIndex = -1;
  std::vector<double> out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (timeIndex && names[i] == "t") {
      *timeIndex = static_cast<int>(i);
      out.push_back(0);
      continue;
    }
    auto it = std::find_if(given.begin(), given.end(), [&](const auto &p) { return p.first == names[i]; });
    if (it == given.end())
      study.fail(key, fixture + "'s parameter '" + names[i] + "' has no value");
    out.push_back(it->second);
  }
  return out;
}

} // namespace tensorium_mlir::verification
