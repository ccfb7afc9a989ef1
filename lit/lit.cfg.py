# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "Tensorium"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)

# Tests live in lit/ and, as RUN lines inside the programs themselves, in fixtures/
# (reached through the lit/fixtures link, so every shipped .tn program is a test).
config.suffixes = [".test", ".tn", ".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tensorium_obj_root, "lit")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%fixtures", os.path.join(config.tensorium_src_root, "fixtures")))
config.substitutions.append(("%tensorium_src", config.tensorium_src_root))
config.substitutions.append(("%tensorium_include", os.path.join(config.tensorium_src_root, "include")))
# Host compilers used to check that generated headers compile cleanly as C and C++.
config.substitutions.append(("%host-cc", "cc"))
config.substitutions.append(("%host-cxx", "c++"))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.tensorium_tools_dir, config.llvm_tools_dir]
tools = [
    ToolSubst("Tensorium_cc", unresolved="fatal"),
    ToolSubst("Tensorium_abi_probe", unresolved="fatal"),
    ToolSubst("tensorium-two-punctures", unresolved="fatal"),
    ToolSubst("tensorium-verify", unresolved="fatal"),
    ToolSubst("tensorium-converge", unresolved="fatal"),
    ToolSubst("tensorium-solve", unresolved="fatal"),
    ToolSubst("tensorium-opt", unresolved="fatal"),
    ToolSubst("mlir-opt", unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.tensorium_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
