#pragma once
// The module tables of the fixture compiled into this test (include its generated header first),
// as a loadable module would export them.
#ifndef TENSORIUM_GENERATED_HOST_H
#error "include the generated kernel header before GeneratedTables.h"
#endif

inline const tensorium_module_tables &generatedModuleTables() {
  static const tensorium_module_tables t = {
      TENSORIUM_ABI_VERSION, TENSORIUM_DIMENSION, tensorium_param_names, TENSORIUM_PARAM_COUNT,
      tensorium_host_kernels, TENSORIUM_HOST_KERNEL_COUNT, tensorium_host_buffers, TENSORIUM_HOST_BUFFER_COUNT,
      tensorium_host_kernel_adapters, TENSORIUM_HOST_KERNEL_ADAPTER_COUNT,
      tensorium_spectral_residual_kernels, TENSORIUM_SPECTRAL_RESIDUAL_KERNEL_COUNT,
      tensorium_spectral_residual_grid_kernels, TENSORIUM_SPECTRAL_RESIDUAL_GRID_KERNEL_COUNT,
      tensorium_spectral_residual_systems, TENSORIUM_SPECTRAL_RESIDUAL_SYSTEM_COUNT};
  return t;
}
