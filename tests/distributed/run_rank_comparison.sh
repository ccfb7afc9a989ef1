#!/usr/bin/env bash
# run_rank_comparison.sh MPIEXEC PROGRAM WORKDIR ARGS...: PROGRAM ARGS in one process, then under
# MPIEXEC -n 2, 3 and 4, each compared bitwise with the one-process result.
set -euo pipefail
# OpenMPI refuses root without these (CI containers); one OpenMP thread per rank on 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mpiexec=$1 program=$2 work=$3
shift 3
mkdir -p "$work"
rm -f "$work"/*.bin
"$program" "$@" --out "$work/serial.bin"
for n in 2 3 4; do
  echo "--- mpirun -n $n"
  "$mpiexec" --oversubscribe -n "$n" "$program" "$@" --out "$work/ranks$n.bin" --reference "$work/serial.bin"
done
