"""xdmf_check.py INDEX.xmf POINTS BOUNDS TIMES ARRAYS FIELD POINT_ID  (run by ParaView's pvbatch)

Opens an evolution's XDMF index with ParaView's own XDMF reader, as a user would, and compares
what it reads with what was written: the number of points, the bounds (xmin,xmax,...), the
snapshot times and the array names (comma-separated lists, times to 1e-12), at every time.
Prints FIELD's value at POINT_ID at the last time as "value <number>" so that the caller can
compare it with the HDF5 data. Exits 1 naming the first mismatch."""
import math
import sys

from paraview.simple import XDMFReader

path, points, bounds, times, arrays, field, point_id = sys.argv[1:8]
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
for t in got_times:
    reader.UpdatePipeline(t)
    info = reader.GetDataInformation()
    if info.GetNumberOfPoints() != int(points):
        fail("%d points at t = %g, written %s" % (info.GetNumberOfPoints(), t, points))
    got_bounds = info.GetBounds()
    if any(abs(a - b) > 1e-12 for a, b in zip(got_bounds, want_bounds)):
        fail("bounds %s at t = %g, written %s" % (got_bounds, t, want_bounds))
    data = reader.PointData
    got_arrays = sorted(data.GetArray(i).GetName() for i in range(data.GetNumberOfArrays()))
    if got_arrays != want_arrays:
        fail("arrays %s at t = %g, written %s" % (got_arrays, t, want_arrays))
from paraview import servermanager

last = servermanager.Fetch(reader)
value = last.GetPointData().GetArray(field).GetValue(int(point_id))
print("value %s" % ("nan" if math.isnan(value) else repr(value)))
print("PASS: %s: %d times, %s points, %d arrays" % (path, len(got_times), points, len(got_arrays)))
