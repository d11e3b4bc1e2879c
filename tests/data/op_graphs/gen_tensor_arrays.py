#!/usr/bin/python3
"""Op-graph cases for TensorArrays (TensorArrayV3 and its ops) run by
`flowvm run`: scatter then gather, writes then concat, split then read, size,
a dynamic array growing, and the errors: a read out of range, a read of an
index never written, a second write to one index. (Loops over TensorArrays
are tested in src/kernels/data_flow/tensor_array_loop_test.cc.) Expected values are NumPy's.
Run: /usr/bin/python3 tests/data/op_graphs/gen_tensor_arrays.py"""
import numpy as np

from opgraph import Family, Graph, Shape

f32 = np.float32
fam = Family("tensor_arrays")
x = np.arange(12, dtype=f32).reshape(4, 3) * 0.5


def array(g, name, size, dynamic=False, **kw):
    g.const(name + "_size", np.array(size, np.int32))
    g.node(name, "TensorArrayV3", [name + "_size"], dtype=f32, dynamic_size=dynamic, **kw)
    return name


# Scatter the rows, gather them back in another order; size.
g = Graph()
g.const("x", x)
ta = array(g, "ta", 4)
g.const("idx", np.array([0, 1, 2, 3], np.int32))
g.node("scatter", "TensorArrayScatterV3", [ta, "idx", "x", ta + ":1"], T=f32)
g.const("order", np.array([3, 0, 2], np.int32))
g.node("gather", "TensorArrayGatherV3", [ta, "order", "scatter"], dtype=f32, element_shape=Shape([3]))
g.node("size", "TensorArraySizeV3", [ta, "scatter"])
fam.case("scatter_gather_size", g, fetches={"gather:0": x[[3, 0, 2]], "size:0": np.array(4, np.int32)})

# Writes of rows of different lengths, then concat (values and lengths).
g = Graph()
ta = array(g, "ta", 3)
flow = ta + ":1"
for i, row in enumerate([np.array([1, 2], f32), np.array([3], f32), np.array([4, 5, 6], f32)]):
    g.const("i%d" % i, np.array(i, np.int32))
    g.const("v%d" % i, row)
    flow = g.node("w%d" % i, "TensorArrayWriteV3", [ta, "i%d" % i, "v%d" % i, flow], T=f32)
g.node("concat", "TensorArrayConcatV3", [ta, flow], dtype=f32)
fam.case("write_concat", g, fetches={"concat:0": np.array([1, 2, 3, 4, 5, 6], f32),
                                     "concat:1": np.array([2, 1, 3], np.int64)})

# Split a vector into pieces, read one.
g = Graph()
ta = array(g, "ta", 3)
g.const("value", np.arange(6, dtype=f32))
g.const("lengths", np.array([1, 3, 2], np.int64))
g.node("split", "TensorArraySplitV3", [ta, "value", "lengths", ta + ":1"], T=f32)
g.const("one", np.array(1, np.int32))
g.node("read", "TensorArrayReadV3", [ta, "one", "split"], dtype=f32)
fam.case("split_read", g, fetches={"read:0": np.array([1, 2, 3], f32)})

# A dynamic array grows past its initial size.
g = Graph()
ta = array(g, "ta", 0, dynamic=True)
g.const("five", np.array(5, np.int32))
g.const("v", np.array([7.0], f32))
g.node("w", "TensorArrayWriteV3", [ta, "five", "v", ta + ":1"], T=f32)
g.node("size", "TensorArraySizeV3", [ta, "w"])
fam.case("dynamic_size_grows", g, fetches={"size:0": np.array(6, np.int32)})

# The errors.
g = Graph()
ta = array(g, "ta", 2)
g.const("three", np.array(3, np.int32))
g.node("read", "TensorArrayReadV3", [ta, "three", ta + ":1"], dtype=f32)
fam.case("read_out_of_range", g, fetches=["read:0"],
         error=["InvalidArgument", "node 'read' (TensorArrayReadV3)", "index 3", "size"])

g = Graph()
ta = array(g, "ta", 2, element_shape=Shape(None))
g.const("zero", np.array(0, np.int32))
g.node("read", "TensorArrayReadV3", [ta, "zero", ta + ":1"], dtype=f32)
fam.case("read_unwritten", g, fetches=["read:0"],
         error=["InvalidArgument", "node 'read' (TensorArrayReadV3)", "not yet been written"])

g = Graph()
ta = array(g, "ta", 2)
g.const("zero", np.array(0, np.int32))
g.const("v", np.array([1.0], f32))
g.node("w1", "TensorArrayWriteV3", [ta, "zero", "v", ta + ":1"], T=f32)
g.node("w2", "TensorArrayWriteV3", [ta, "zero", "v", "w1"], T=f32)
fam.case("write_twice", g, fetches=["w2:0"],
         error=["InvalidArgument", "node 'w2' (TensorArrayWriteV3)", "written"])
