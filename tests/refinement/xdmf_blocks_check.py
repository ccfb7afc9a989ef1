"""xdmf_blocks_check.py INDEX BLOCKS POINTS BOUNDS TIMES ARRAYS FIELD BLOCK POINT_ID  (run by pvbatch)

Opens a refined evolution's XDMF index with ParaView's own XDMF reader, as a user would, and
compares what it reads with what was written: per time a multiblock data set of BLOCKS uniform
grids holding POINTS points in all, the bounds (xmin,xmax,...), the snapshot times and the array
names of every block (comma-separated lists, numbers to 1e-12). Prints FIELD's value at POINT_ID
of block BLOCK at the last time as "value <number>" for the caller to compare with the HDF5 data.
Exits 1 naming the first mismatch."""
import math
import sys

from paraview import servermanager
from paraview.simple import XDMFReader

path, blocks, points, bounds, times, arrays, field, block, point_id = sys.argv[1:10]
want_bounds = [float(b) for b in bounds.split(",")]
want_times = [float(t) for t in times.split(",")]
want_arrays = sorted(arrays.split(","))


def fail(message):
    print("FAIL: %s: %s" % (path, message))
    sys.exit(1)


reader = XDMFReader(FileNames=[path])
reader.UpdatePipelineInformation()
got_times = list(reader.TimestepValues) if len(want_times) > 1 else [want_times[0]]
if len(got_times) != len(want_times) or any(abs(a - b) > 1e-12 for a, b in zip(got_times, want_times)):
    fail("times %s, written %s" % (got_times, want_times))
data = None
for t in got_times:
    reader.UpdatePipeline(t)
    info = reader.GetDataInformation()
    if info.GetNumberOfPoints() != int(points):
        fail("%d points at t = %g, written %s" % (info.GetNumberOfPoints(), t, points))
    data = servermanager.Fetch(reader)
    if data.GetNumberOfBlocks() != int(blocks):
        fail("%d blocks at t = %g, written %s" % (data.GetNumberOfBlocks(), t, blocks))
    # The union of the blocks' own bounds (the summary's are single precision).
    got_bounds = [math.inf, -math.inf] * 3
    for b in range(data.GetNumberOfBlocks()):
        grid = data.GetBlock(b)
        box = grid.GetBounds()
        for a in range(3):
            got_bounds[2 * a] = min(got_bounds[2 * a], box[2 * a])
            got_bounds[2 * a + 1] = max(got_bounds[2 * a + 1], box[2 * a + 1])
        names = sorted(grid.GetPointData().GetArray(i).GetName() for i in range(grid.GetPointData().GetNumberOfArrays()))
        if names != want_arrays:
            fail("arrays %s in block %d at t = %g, written %s" % (names, b, t, want_arrays))
    if any(abs(a - b) > 1e-12 for a, b in zip(got_bounds, want_bounds)):
        fail("bounds %s at t = %g, written %s" % (got_bounds, t, want_bounds))
value = data.GetBlock(int(block)).GetPointData().GetArray(field).GetValue(int(point_id))
print("value %s" % ("nan" if math.isnan(value) else repr(value)))
print("PASS: %s: %d times, %s blocks, %s points, %d arrays" % (path, len(got_times), blocks, points, len(want_arrays)))
