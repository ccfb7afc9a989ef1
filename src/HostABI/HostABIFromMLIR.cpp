#include "tensorium_mlir/HostABI/HostABIFromMLIR.h"
#include "tensorium_mlir/HostABI/GeneratedKernelABI.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>

namespace tensorium_mlir::abi {

namespace {

llvm::StringRef ref(std::string_view s) { return llvm::StringRef(s.data(), s.size()); }

std::vector<std::string> stringList(mlir::Operation *op, std::string_view name) {
  std::vector<std::string> out;
  if (auto arr = op->getAttrOfType<mlir::ArrayAttr>(ref(name)))
    for (mlir::Attribute a : arr)
      if (auto s = mlir::dyn_cast<mlir::StringAttr>(a))
        out.push_back(s.getValue().str());
  return out;
}

std::vector<int64_t> intList(mlir::Operation *op, std::string_view name) {
  if (auto arr = op->getAttrOfType<mlir::DenseI64ArrayAttr>(ref(name)))
    return std::vector<int64_t>(arr.asArrayRef().begin(), arr.asArrayRef().end());
  return {};
}

std::string stringAttr(mlir::Operation *op, std::string_view name) {
  if (auto s = op->getAttrOfType<mlir::StringAttr>(ref(name)))
    return s.getValue().str();
  return {};
}

int64_t intAttr(mlir::Attribute a, int64_t fallback = 0) {
  if (auto i = mlir::dyn_cast_or_null<mlir::IntegerAttr>(a))
    return i.getInt();
  return fallback;
}

std::string cSafe(const std::string &name) {
  std::string out;
  for (char c : name)
    out.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
    out.insert(out.begin(), '_');
  return out;
}

bool startsWith(const std::string &s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

} // namespace

HostModuleABI buildHostModuleABI(mlir::ModuleOp module) {
  HostModuleABI abi;
  mlir::Operation *mod = module.getOperation();
  abi.version = intAttr(mod->getAttr(ref(kAttrVersion)));
  if (auto sim = mod->getAttrOfType<mlir::DictionaryAttr>(ref(kAttrModuleSimulation))) {
    abi.simulation.dimension = static_cast<unsigned>(intAttr(sim.get("dimension"), 3));
    abi.simulation.order = static_cast<unsigned>(intAttr(sim.get("order"), 2));
    if (auto s = mlir::dyn_cast_or_null<mlir::StringAttr>(sim.get("coordinates")))
      abi.simulation.coordinates = s.getValue().str();
    if (auto s = mlir::dyn_cast_or_null<mlir::StringAttr>(sim.get("scheme")))
      abi.simulation.scheme = s.getValue().str();
    if (auto r = mlir::dyn_cast_or_null<mlir::DenseI64ArrayAttr>(sim.get("resolution")))
      abi.simulation.resolution.assign(r.asArrayRef().begin(), r.asArrayRef().end());
  }
  if (auto fields = mod->getAttrOfType<mlir::ArrayAttr>(ref(kAttrModuleFields))) {
    for (mlir::Attribute a : fields) {
      auto d = mlir::dyn_cast<mlir::DictionaryAttr>(a);
      if (!d)
        continue;
      HostFieldABI f;
      if (auto s = mlir::dyn_cast_or_null<mlir::StringAttr>(d.get("name")))
        f.name = s.getValue().str();
      if (auto s = mlir::dyn_cast_or_null<mlir::StringAttr>(d.get("type")))
        f.type = s.getValue().str();
      if (auto s = mlir::dyn_cast_or_null<mlir::StringAttr>(d.get("variance")))
        f.variance = s.getValue().str();
      f.rank = static_cast<unsigned>(intAttr(d.get("rank")));
      f.componentCount = static_cast<unsigned>(intAttr(d.get("components"), 1));
      if (auto b = mlir::dyn_cast_or_null<mlir::BoolAttr>(d.get("spacetime")))
        f.spacetime = b.getValue();
      abi.fields.push_back(std::move(f));
    }
  }

  if (auto problems = mod->getAttrOfType<mlir::ArrayAttr>(ref(kAttrModuleSpectralProblems))) {
    auto str = [](mlir::DictionaryAttr d, const char *key) {
      auto s = mlir::dyn_cast_or_null<mlir::StringAttr>(d.get(key));
      return s ? s.getValue().str() : std::string();
    };
    for (mlir::Attribute a : problems) {
      auto d = mlir::dyn_cast<mlir::DictionaryAttr>(a);
      if (!d)
        continue;
      HostSpectralProblemABI p;
      p.block = str(d, "block");
      p.map = str(d, "map");
      p.linear = str(d, "linear");
      p.preconditioner = str(d, "preconditioner");
      if (auto r = mlir::dyn_cast_or_null<mlir::DenseI64ArrayAttr>(d.get("resolution")))
        p.resolution.assign(r.asArrayRef().begin(), r.asArrayRef().end());
      if (auto b = mlir::dyn_cast_or_null<mlir::DenseF64ArrayAttr>(d.get("bounds")))
        p.bounds.assign(b.asArrayRef().begin(), b.asArrayRef().end());
      if (auto t = mlir::dyn_cast_or_null<mlir::FloatAttr>(d.get("tolerance")))
        p.tolerance = t.getValueAsDouble();
      p.maxIterations = intAttr(d.get("max_iterations"), 20);
      p.restart = intAttr(d.get("restart"), 30);
      if (auto b = mlir::dyn_cast_or_null<mlir::BoolAttr>(d.get("line_search")))
        p.lineSearch = b.getValue();
      if (auto f = mlir::dyn_cast_or_null<mlir::FloatAttr>(d.get("forcing")))
        p.forcing = f.getValueAsDouble();
      if (auto defaults = mlir::dyn_cast_or_null<mlir::DictionaryAttr>(d.get("param_defaults")))
        for (mlir::NamedAttribute nd : defaults)
          if (auto f = mlir::dyn_cast<mlir::FloatAttr>(nd.getValue()))
            p.paramDefaults.push_back({nd.getName().str(), f.getValueAsDouble()});
      if (auto u = mlir::dyn_cast_or_null<mlir::ArrayAttr>(d.get("unknowns")))
        for (mlir::Attribute n : u)
          if (auto s = mlir::dyn_cast<mlir::StringAttr>(n))
            p.unknowns.push_back(s.getValue().str());
      if (auto bs = mlir::dyn_cast_or_null<mlir::ArrayAttr>(d.get("boundaries")))
        for (mlir::Attribute ba : bs)
          if (auto bd = mlir::dyn_cast<mlir::DictionaryAttr>(ba)) {
            HostSpectralBoundaryABI b;
            b.unknown = str(bd, "unknown");
            b.face = str(bd, "face");
            b.kind = str(bd, "kind");
            b.kernel = str(bd, "kernel");
            b.axis = intAttr(bd.get("axis"));
            b.side = intAttr(bd.get("side"));
            p.boundaries.push_back(std::move(b));
          }
      abi.spectralProblems.push_back(std::move(p));
    }
  }

  if (auto boundaries = mod->getAttrOfType<mlir::ArrayAttr>(ref(kAttrModuleEvolutionBoundaries)))
    for (mlir::Attribute a : boundaries)
      if (auto d = mlir::dyn_cast<mlir::DictionaryAttr>(a)) {
        HostEvolutionBoundaryABI b;
        if (auto s = mlir::dyn_cast_or_null<mlir::StringAttr>(d.get("field")))
          b.field = s.getValue().str();
        if (auto s = mlir::dyn_cast_or_null<mlir::StringAttr>(d.get("kind")))
          b.kind = s.getValue().str();
        if (auto f = mlir::dyn_cast_or_null<mlir::FloatAttr>(d.get("value")))
          b.value = f.getValueAsDouble();
        if (auto f = mlir::dyn_cast_or_null<mlir::FloatAttr>(d.get("speed")))
          b.speed = f.getValueAsDouble();
        abi.evolutionBoundaries.push_back(std::move(b));
      }

  if (auto defaults = mod->getAttrOfType<mlir::DictionaryAttr>(ref(kAttrModuleSystemParamDefaults)))
    for (mlir::NamedAttribute nd : defaults)
      if (auto f = mlir::dyn_cast<mlir::FloatAttr>(nd.getValue()))
        abi.systemParamDefaults.push_back({nd.getName().str(), f.getValueAsDouble()});

  for (auto func : module.getOps<mlir::func::FuncOp>()) {
    mlir::Operation *op = func.getOperation();
    if (!op->hasAttr(ref(kAttrVersion)))
      continue;
    HostKernelABI k;
    k.symbol = func.getSymName().str();
    k.kind = stringAttr(op, kAttrKind);
    k.version = intAttr(op->getAttr(ref(kAttrVersion)));
    k.memoryLayout = stringAttr(op, kAttrMemoryLayout);
    k.memrefABI = stringAttr(op, kAttrMemrefABI);
    k.paramNames = stringList(op, kAttrParamNames);
    k.coordNames = stringList(op, kAttrCoordNames);
    k.fieldNames = stringList(op, kAttrFieldNames);
    k.outputNames = stringList(op, kAttrOutputNames);
    k.readArgIndices = intList(op, kAttrReadArgIndices);
    k.writeArgIndices = intList(op, kAttrWriteArgIndices);
    if (auto r = op->getAttrOfType<mlir::IntegerAttr>(ref(kAttrStencilRadius)))
      k.stencilRadius = r.getInt();
    k.residualKernel = op->hasAttr(ref(kAttrResidualKernel));
    k.constraintBlock = stringAttr(op, kAttrConstraintBlock);
    mlir::FunctionType type = func.getFunctionType();
    k.returnsF64 = type.getNumResults() == 1;
    std::vector<std::string> argNames = stringList(op, kAttrArgNames);

    // Logical names of the memref arguments, in order, by kind (the ABI's argument layout).
    std::vector<std::pair<std::string, HostBufferRole>> memrefNames;
    const bool spectralGrid = k.kind == kKindSpectralResidualGrid;
    bool coordsAreBuffers = false;
    for (mlir::Type t : type.getInputs())
      if (mlir::isa<mlir::MemRefType>(t))
        coordsAreBuffers = true;
    if (spectralGrid) {
      for (const std::string &f : k.fieldNames)
        for (std::string_view slot : kSpectralBundleSlotNames)
          memrefNames.push_back({f + "_" + std::string(slot), HostBufferRole::Field});
      for (const std::string &c : k.coordNames)
        memrefNames.push_back({c, HostBufferRole::Coordinate});
      for (const std::string &o : k.outputNames)
        memrefNames.push_back({o, HostBufferRole::Output});
    } else if (k.kind == kKindInit || k.kind == kKindRhs || k.kind == kKindEntry) {
      for (const std::string &o : k.outputNames)
        memrefNames.push_back({o, HostBufferRole::Output});
    } else {
      // Coordinates are buffers in grid kernels and f64 values in point kernels.
      if (!isInitPointKind(k.kind) && coordsAreBuffers)
        for (const std::string &c : k.coordNames)
          memrefNames.push_back({c, HostBufferRole::Coordinate});
      for (const std::string &f : k.fieldNames)
        memrefNames.push_back({f, HostBufferRole::Field});
    }

    size_t nextMemref = 0;
    for (unsigned i = 0; i < type.getNumInputs(); ++i) {
      mlir::Type t = type.getInput(i);
      HostArgABI arg;
      if (t.isIndex()) {
        arg.kind = HostArgKind::Index;
      } else if (auto m = mlir::dyn_cast<mlir::MemRefType>(t)) {
        arg.kind = m.hasStaticShape() ? HostArgKind::FixedMemref : HostArgKind::Memref;
        if (m.hasStaticShape())
          arg.fixedSize = m.getNumElements();
      } else {
        arg.kind = HostArgKind::F64;
      }
      if (i < argNames.size())
        arg.name = argNames[i];
      if (arg.kind == HostArgKind::Memref || arg.kind == HostArgKind::FixedMemref) {
        HostBufferABI b;
        if (nextMemref < memrefNames.size()) {
          b.name = memrefNames[nextMemref].first;
          b.role = memrefNames[nextMemref].second;
        } else {
          b.name = "arg" + std::to_string(i);
        }
        ++nextMemref;
        if (arg.name.empty())
          arg.name = b.name;
        b.cName = cSafe(b.name);
        b.argIndex = i;
        bool read = std::find(k.readArgIndices.begin(), k.readArgIndices.end(), int64_t(i)) != k.readArgIndices.end();
        bool written = std::find(k.writeArgIndices.begin(), k.writeArgIndices.end(), int64_t(i)) != k.writeArgIndices.end();
        b.access = read && written ? HostBufferAccess::ReadWrite
                   : read          ? HostBufferAccess::Read
                   : written       ? HostBufferAccess::Write
                                   : HostBufferAccess::None;
        if (written)
          b.role = HostBufferRole::Output;
        // Shape from the field table; rhs outputs d<X> take the shape of X.
        const HostFieldABI *f = b.role == HostBufferRole::Coordinate ? nullptr : abi.findField(b.name);
        if (!f && b.role == HostBufferRole::Output && startsWith(b.name, kDerivativeOutputPrefix) &&
            (k.kind == kKindRhsGridScf || k.kind == kKindRhsGridAffine || k.kind == kKindRhsGridParallel ||
             k.kind == kKindRhs))
          f = abi.findField(b.name.substr(kDerivativeOutputPrefix.size()));
        if (f && !spectralGrid) {
          b.variance = f->variance;
          b.rank = f->rank;
          b.componentCount = f->componentCount;
        }
        if (arg.kind == HostArgKind::FixedMemref)
          b.componentCount = static_cast<unsigned>(arg.fixedSize);
        k.buffers.push_back(std::move(b));
      } else if (arg.name.empty()) {
        arg.name = "arg" + std::to_string(i);
      }
      k.args.push_back(std::move(arg));
    }
    // Scalar argument names from the ABI layout where no explicit list was given.
    if (argNames.empty()) {
      std::vector<std::string> scalarNames;
      if (isStencilGridKind(k.kind))
        scalarNames = {"nx", "ny", "nz", "dx", "dy", "dz"};
      else if (spectralGrid)
        scalarNames = {"n_points"};
      if (k.kind != kKindSpectralResidual && k.kind != kKindSpectralResidualJvp) {
        scalarNames.insert(scalarNames.end(), k.paramNames.begin(), k.paramNames.end());
        if (isInitPointKind(k.kind))
          scalarNames.insert(scalarNames.end(), k.coordNames.begin(), k.coordNames.end());
      } else {
        const bool jvp = k.kind == kKindSpectralResidualJvp;
        for (int pass = 0; pass < (jvp ? 2 : 1); ++pass)
          for (const std::string &f : k.fieldNames)
            for (std::string_view slot : kSpectralBundleSlotNames)
              scalarNames.push_back(f + (pass ? "_dir_" : "_") + std::string(slot));
        scalarNames.insert(scalarNames.end(), k.coordNames.begin(), k.coordNames.end());
        scalarNames.insert(scalarNames.end(), k.paramNames.begin(), k.paramNames.end());
      }
      size_t next = 0;
      for (HostArgABI &a : k.args)
        if (a.kind == HostArgKind::Index || a.kind == HostArgKind::F64)
          if (next < scalarNames.size())
            a.name = scalarNames[next++];
    }
    abi.kernels.push_back(std::move(k));
  }
  return abi;
}

} // namespace tensorium_mlir::abi
