# tensorium_add_kernel(NAME FIXTURE file.tn [PREFIX name] [PARAMS k=v ...] [KERNELS init rhs ...]
#                      [OPT_LEVEL 0-3] [MODULE] [SYMBOLIC] [FLAGS driver flags ...])
# Runs Tensorium_cc at build time and wraps the object it emits in a linkable target (a static
# library by default, a dlopen-able shared module with MODULE). The generated C host header is
# <binary dir>/tensorium_kernels/NAME.h, on the target's include path: #include "NAME.h".
# FLAGS are passed to Tensorium_cc as they are (e.g. --vector-width 1 --fp-contract=off). Kernels
# target the building machine's CPU (--cpu native) unless TENSORIUM_KERNEL_CPU names another.
# PREFIX exports the module's symbols, tables and macros as name_tensorium_... / NAME_TENSORIUM_...
# (Tensorium_cc --symbol-prefix) so that several modules link into one program. Linking two
# static kernel libraries with the same prefix (or two without one) into one program fails at
# link time with "multiple definition of tensorium_kernel_symbols_taken__give_each_module_its_own_PREFIX"
# (or the prefixed form of that name) instead of silently calling the other module's kernels.
# Parallel kernels call LLVM's OpenMP runtime (the __kmpc_* entry points): LLVM 19's first.
find_library(TENSORIUM_OPENMP_LIBRARY NAMES omp libomp.so.5
             HINTS /usr/lib/llvm-19/lib ENV TENSORIUM_OPENMP_DIR DOC "LLVM OpenMP runtime (libomp)")
if(NOT TENSORIUM_OPENMP_LIBRARY)
  message(FATAL_ERROR "tensorium_add_kernel needs LLVM's OpenMP runtime (libomp, Debian package libomp-19-dev); "
                      "set TENSORIUM_OPENMP_LIBRARY to its path")
endif()
set(TENSORIUM_KERNEL_CPU "" CACHE STRING "Target CPU of build-time kernels (empty: Tensorium_cc's default, native)")
# tensorium_fixture_variant(OUTPUT SOURCE FROM TO): writes OUTPUT, a copy of the program SOURCE
# with the text FROM replaced by TO (e.g. another spatial order), re-made when SOURCE changes; a
# configure error if SOURCE no longer contains FROM.
function(tensorium_fixture_variant OUTPUT SOURCE FROM TO)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${SOURCE})
  file(READ ${SOURCE} text)
  string(FIND "${text}" "${FROM}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "tensorium_fixture_variant: ${SOURCE} no longer contains '${FROM}'; update ${OUTPUT}'s recipe")
  endif()
  string(REPLACE "${FROM}" "${TO}" text "${text}")
  file(WRITE ${OUTPUT} "${text}")
endfunction()

# The compiler target: Tensorium_cc in the Tensorium build, Tensorium::Tensorium_cc downstream.
if(NOT TENSORIUM_CC_TARGET)
  set(TENSORIUM_CC_TARGET Tensorium_cc)
endif()

function(tensorium_add_kernel NAME)
  cmake_parse_arguments(ARG "MODULE;SYMBOLIC" "FIXTURE;OPT_LEVEL;PREFIX" "PARAMS;KERNELS;FLAGS" ${ARGN})
  if(NOT ARG_FIXTURE)
    message(FATAL_ERROR "tensorium_add_kernel(${NAME}): FIXTURE is required")
  endif()
  get_filename_component(fixture "${ARG_FIXTURE}" ABSOLUTE)
  set(object "${CMAKE_CURRENT_BINARY_DIR}/${NAME}.o")
  set(header_dir "${CMAKE_CURRENT_BINARY_DIR}/tensorium_kernels")
  set(header "${header_dir}/${NAME}.h")
  set(flags)
  foreach(p IN LISTS ARG_PARAMS)
    list(APPEND flags --param "${p}")
  endforeach()
  if(ARG_KERNELS)
    string(REPLACE ";" "," kernels "${ARG_KERNELS}")
    list(APPEND flags --kernels "${kernels}")
  endif()
  if(ARG_SYMBOLIC)
    list(APPEND flags --mode symbolic)
  endif()
  if(ARG_OPT_LEVEL)
    list(APPEND flags "-O${ARG_OPT_LEVEL}")
  endif()
  if(TENSORIUM_KERNEL_CPU)
    list(APPEND flags --cpu "${TENSORIUM_KERNEL_CPU}")
  endif()
  # C names of the module's tables: tensorium_x, or prefix_tensorium_x with PREFIX.
  set(p "")
  set(P "")
  if(DEFINED ARG_PREFIX)
    if(NOT ARG_PREFIX MATCHES "^[A-Za-z][A-Za-z0-9_]*$" OR ARG_PREFIX MATCHES "_$" OR ARG_PREFIX MATCHES "[Tt][Ee][Nn][Ss][Oo][Rr][Ii][Uu][Mm]")
      message(FATAL_ERROR "tensorium_add_kernel(${NAME}): PREFIX '${ARG_PREFIX}' must be a C identifier that "
                          "starts with a letter, does not end with '_' and does not contain 'tensorium'")
    endif()
    list(APPEND flags --symbol-prefix "${ARG_PREFIX}")
    set(p "${ARG_PREFIX}_")
    string(TOUPPER "${p}" P)
  endif()
  list(APPEND flags ${ARG_FLAGS})
  add_custom_command(
    OUTPUT "${object}" "${header}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${header_dir}"
    COMMAND ${TENSORIUM_CC_TARGET} ${flags} --emit-obj "${object}" --emit-host-header "${header}" "${fixture}"
    DEPENDS ${TENSORIUM_CC_TARGET} "${fixture}"
    COMMENT "Compiling kernel ${NAME} from ${ARG_FIXTURE}"
    VERBATIM)
  set_source_files_properties("${object}" PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  if(ARG_MODULE)
    # A loadable module also exports its tables: tensorium_get_module_tables().
    set(exports "${header_dir}/${NAME}_exports.c")
    file(WRITE "${exports}.in" "#include \"${NAME}.h\"\n"
      "const tensorium_module_tables *tensorium_get_module_tables(void);\n"
      "const tensorium_module_tables *tensorium_get_module_tables(void) {\n"
      "  static const tensorium_module_tables tables = {\n"
      "      ${P}TENSORIUM_ABI_VERSION, ${P}TENSORIUM_DIMENSION, ${p}tensorium_param_names, ${P}TENSORIUM_PARAM_COUNT,\n"
      "      ${p}tensorium_host_kernels, ${P}TENSORIUM_HOST_KERNEL_COUNT, ${p}tensorium_host_buffers, ${P}TENSORIUM_HOST_BUFFER_COUNT,\n"
      "      ${p}tensorium_host_kernel_adapters, ${P}TENSORIUM_HOST_KERNEL_ADAPTER_COUNT,\n"
      "      ${p}tensorium_spectral_residual_kernels, ${P}TENSORIUM_SPECTRAL_RESIDUAL_KERNEL_COUNT,\n"
      "      ${p}tensorium_spectral_residual_grid_kernels, ${P}TENSORIUM_SPECTRAL_RESIDUAL_GRID_KERNEL_COUNT,\n"
      "      ${p}tensorium_spectral_residual_systems, ${P}TENSORIUM_SPECTRAL_RESIDUAL_SYSTEM_COUNT};\n"
      "  return &tables;\n}\n"
      "#ifdef ${P}TENSORIUM_SPECTRAL_PROBLEM_COUNT\n"
      "const tensorium_spectral_problem_desc *tensorium_get_spectral_problems(int32_t *count);\n"
      "const tensorium_spectral_problem_desc *tensorium_get_spectral_problems(int32_t *count) {\n"
      "  *count = ${P}TENSORIUM_SPECTRAL_PROBLEM_COUNT;\n  return ${p}tensorium_spectral_problems;\n}\n"
      "#endif\n"
      "#ifdef ${P}TENSORIUM_EVOLUTION_BOUNDARY_COUNT\n"
      "const tensorium_evolution_boundary_desc *tensorium_get_evolution_boundaries(int32_t *count);\n"
      "const tensorium_evolution_boundary_desc *tensorium_get_evolution_boundaries(int32_t *count) {\n"
      "  *count = ${P}TENSORIUM_EVOLUTION_BOUNDARY_COUNT;\n  return ${p}tensorium_evolution_boundaries;\n}\n"
      "#endif\n"
      "#ifdef ${P}TENSORIUM_SYSTEM_PARAM_DEFAULT_COUNT\n"
      "const double *tensorium_get_system_param_defaults(int32_t *count, const char *const **names);\n"
      "const double *tensorium_get_system_param_defaults(int32_t *count, const char *const **names) {\n"
      "  *count = ${P}TENSORIUM_SYSTEM_PARAM_DEFAULT_COUNT;\n  *names = ${p}tensorium_system_param_default_names;\n"
      "  return ${p}tensorium_system_param_default_values;\n}\n"
      "#endif\n")
    configure_file("${exports}.in" "${exports}" COPYONLY)
    add_library(${NAME} MODULE "${object}" "${exports}")
    set_target_properties(${NAME} PROPERTIES C_STANDARD 99)
  else()
    # The link guard: every static kernel library defines the one symbol its prefix owns, and
    # pulls that definition into every program it is linked into (--undefined on a symbol only
    # this library defines), so a second module with the same prefix is a duplicate definition.
    # C where the project enables it, else C++ (extern "C" keeps the names unmangled).
    get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
    set(linkage "")
    set(guard "${header_dir}/${NAME}_link_guard.c")
    if(NOT "C" IN_LIST languages)
      set(linkage "extern \"C\" ")
      set(guard "${header_dir}/${NAME}_link_guard.cpp")
    endif()
    string(MAKE_C_IDENTIFIER "${NAME}" guard_id)
    file(WRITE "${guard}.in"
      "/* Two kernel modules with the same symbol prefix in one program would call each other's\n"
      " * kernels: the linker refuses the second definition below. Give each module its own PREFIX\n"
      " * (tensorium_add_kernel(... PREFIX name), Tensorium_cc --symbol-prefix name). */\n"
      "${linkage}const char ${p}tensorium_kernel_symbols_taken__give_each_module_its_own_PREFIX = 1;\n"
      "${linkage}const char tensorium_kernel_library_${guard_id} = 1;\n")
    configure_file("${guard}.in" "${guard}" COPYONLY)
    add_library(${NAME} STATIC "${object}" "${guard}")
    target_link_options(${NAME} INTERFACE "LINKER:--undefined=tensorium_kernel_library_${guard_id}")
  endif()
  set_target_properties(${NAME} PROPERTIES LINKER_LANGUAGE C C_VISIBILITY_PRESET default)
  target_sources(${NAME} PRIVATE "${header}")
  target_include_directories(${NAME} PUBLIC "$<BUILD_INTERFACE:${header_dir}>")
  # Parallel kernels call the OpenMP runtime; the math built-ins call libm.
  target_link_libraries(${NAME} PUBLIC ${TENSORIUM_OPENMP_LIBRARY} m)
endfunction()

# A program that compiles fixtures at run time (runtime::ModuleToolchain): defines
# TENSORIUM_TOOLCHAIN_CC, TENSORIUM_TOOLCHAIN_C_COMPILER and TENSORIUM_TOOLCHAIN_OPENMP_LIBRARY
# (the programs of a ModuleToolchain) for `target`; in the Tensorium build also
# TENSORIUM_BUILT_MODULES_DIR, where the modules the build made are listed (built_modules.txt).
function(tensorium_use_module_toolchain target)
  target_compile_definitions(${target} PRIVATE
    TENSORIUM_TOOLCHAIN_CC="$<TARGET_FILE:${TENSORIUM_CC_TARGET}>"
    TENSORIUM_TOOLCHAIN_C_COMPILER="${CMAKE_C_COMPILER}"
    TENSORIUM_TOOLCHAIN_OPENMP_LIBRARY="${TENSORIUM_OPENMP_LIBRARY}")
  if(TENSORIUM_CC_TARGET STREQUAL "Tensorium_cc") # the Tensorium build itself
    target_compile_definitions(${target} PRIVATE TENSORIUM_BUILT_MODULES_DIR="${PROJECT_BINARY_DIR}/verification")
    add_dependencies(${target} Tensorium_cc)
  endif()
endfunction()
