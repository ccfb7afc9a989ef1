# tensorium_add_kernel(NAME FIXTURE file.tn [PARAMS k=v ...] [KERNELS init rhs ...]
#                      [OPT_LEVEL 0-3] [MODULE] [SYMBOLIC] [FLAGS driver flags ...])
# Runs Tensorium_cc at build time and wraps the object it emits in a linkable target (a static
# library by default, a dlopen-able shared module with MODULE). The generated C host header is
# <binary dir>/tensorium_kernels/NAME.h, on the target's include path: #include "NAME.h".
# FLAGS are passed to Tensorium_cc as they are (e.g. --vector-width 1 --fp-contract=off). Kernels
# target the building machine's CPU (--cpu native) unless TENSORIUM_KERNEL_CPU names another.
set(TENSORIUM_OPENMP_LIBRARY /usr/lib/llvm-19/lib/libomp.so CACHE FILEPATH "LLVM 19 OpenMP runtime")
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
  cmake_parse_arguments(ARG "MODULE;SYMBOLIC" "FIXTURE;OPT_LEVEL" "PARAMS;KERNELS;FLAGS" ${ARGN})
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
      "      TENSORIUM_ABI_VERSION, TENSORIUM_DIMENSION, tensorium_param_names, TENSORIUM_PARAM_COUNT,\n"
      "      tensorium_host_kernels, TENSORIUM_HOST_KERNEL_COUNT, tensorium_host_buffers, TENSORIUM_HOST_BUFFER_COUNT,\n"
      "      tensorium_host_kernel_adapters, TENSORIUM_HOST_KERNEL_ADAPTER_COUNT,\n"
      "      tensorium_spectral_residual_kernels, TENSORIUM_SPECTRAL_RESIDUAL_KERNEL_COUNT,\n"
      "      tensorium_spectral_residual_grid_kernels, TENSORIUM_SPECTRAL_RESIDUAL_GRID_KERNEL_COUNT,\n"
      "      tensorium_spectral_residual_systems, TENSORIUM_SPECTRAL_RESIDUAL_SYSTEM_COUNT};\n"
      "  return &tables;\n}\n"
      "#ifdef TENSORIUM_SPECTRAL_PROBLEM_COUNT\n"
      "const tensorium_spectral_problem_desc *tensorium_get_spectral_problems(int32_t *count);\n"
      "const tensorium_spectral_problem_desc *tensorium_get_spectral_problems(int32_t *count) {\n"
      "  *count = TENSORIUM_SPECTRAL_PROBLEM_COUNT;\n  return tensorium_spectral_problems;\n}\n"
      "#endif\n")
    configure_file("${exports}.in" "${exports}" COPYONLY)
    add_library(${NAME} MODULE "${object}" "${exports}")
    set_target_properties(${NAME} PROPERTIES C_STANDARD 99)
  else()
    add_library(${NAME} STATIC "${object}")
  endif()
  set_target_properties(${NAME} PROPERTIES LINKER_LANGUAGE C C_VISIBILITY_PRESET default)
  target_sources(${NAME} PRIVATE "${header}")
  target_include_directories(${NAME} PUBLIC "$<BUILD_INTERFACE:${header_dir}>")
  # Parallel kernels call the OpenMP runtime; the math built-ins call libm.
  target_link_libraries(${NAME} PUBLIC ${TENSORIUM_OPENMP_LIBRARY} m)
endfunction()

# A tool that compiles fixtures at run time (runtime::ModuleToolchain, tools/common/module_toolchain.h)
# and finds the modules the build made (verification/built_modules.txt).
function(tensorium_use_module_toolchain target)
  target_compile_definitions(${target} PRIVATE
    TENSORIUM_TOOLCHAIN_CC="$<TARGET_FILE:Tensorium_cc>"
    TENSORIUM_TOOLCHAIN_C_COMPILER="${CMAKE_C_COMPILER}"
    TENSORIUM_TOOLCHAIN_OPENMP_LIBRARY="${TENSORIUM_OPENMP_LIBRARY}"
    TENSORIUM_BUILT_MODULES_DIR="${PROJECT_BINARY_DIR}/verification")
  add_dependencies(${target} Tensorium_cc)
endfunction()
