#pragma once
// Classification of the differences between two ABI manifests: additive (new kernels, kinds,
// tables, attributes, fixtures, enum values: existing callers keep working) or breaking
// (changed, removed or reordered arguments, changed attribute values of existing kernels,
// changed struct layouts or enum values, removed kernels or modules).
#include <string>
#include <vector>

namespace tensorium_abi_probe {

enum class ChangeClass { Same = 0, Additive = 1, Breaking = 2 };
const char *changeClassName(ChangeClass c);

struct ManifestChange {
  ChangeClass kind;
  std::string where, what;
};

struct ManifestComparison {
  ChangeClass overall = ChangeClass::Same;
  std::vector<ManifestChange> changes;
};

/// Reads a whole manifest (the gate and --compare share this reader) and returns its ABI
/// version; throws std::invalid_argument starting with `label` ("manifest 'x.manifest'") and
/// naming the line when it is not a manifest: not exactly one 'abi_version N' line, or a line
/// of no known kind (shown with non-printable bytes escaped).
long manifestVersion(const std::string &text, const std::string &label);

/// Every difference from `oldText` to `newText` with its class; throws std::invalid_argument
/// naming the manifest and line when either text is not a manifest.
ManifestComparison compareManifests(const std::string &oldText, const std::string &newText);

} // namespace tensorium_abi_probe
