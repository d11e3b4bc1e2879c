#!/usr/bin/python3
"""Op-graph cases for the ops of a word-count map-reduce: StringSplitV2,
Unique, UniqueWithCounts and ReadFile (its errors: a case runs in a fresh
temporary directory, with no file to read), and the whole pipeline over two
shards (ConcatV2 of strings, UnsortedSegmentSum of the counts). Expected
values from Python's str.split and a dict of first occurrences.
Run: /usr/bin/python3 tests/data/op_graphs/gen_strings.py"""
import numpy as np

from opgraph import DType, Family, Graph

fam = Family("strings")
f32, i32, i64 = np.float32, np.int32, np.int64
STRING = DType("DT_STRING")


def err(code, op_name, op, *more):
    return [code, "node '%s' (%s)" % (op_name, op)] + list(more)


def check_strings(g, output, want):
    """String fetches cannot be compared as .npy: fetch Equal(output, want)
    and the output's shape (Equal would broadcast a single element)."""
    tag = output.replace(":", "_")
    g.const("want_" + tag, want)
    g.node("same_" + tag, "Equal", [output, "want_" + tag], T=STRING)
    g.node("shape_" + tag, "Shape", [output], T=STRING, out_type=i64)
    return {"same_" + tag: np.ones(np.shape(want), bool), "shape_" + tag: np.array(np.shape(want), i64)}


def fetches_of(g, values):
    """values: {tensor: expected}; string tensors are checked through Equal."""
    out = {}
    for name, want in values.items():
        if np.asarray(want).dtype.kind in "US":
            out.update(check_strings(g, name, np.asarray(want)))
        else:
            out[name] = want
    return out


def split_expected(rows, sep, maxsplit=-1):
    """The SparseTensor of Python's str.split on each row (the inputs below
    avoid the cases where TensorFlow and Python differ)."""
    indices, values, longest = [], [], 0
    for i, row in enumerate(rows):
        # maxsplit 0: the row whole (Python would strip leading whitespace).
        tokens = [row] if maxsplit == 0 else row.split(sep if sep else None, maxsplit)
        longest = max(longest, len(tokens))
        for j, t in enumerate(tokens):
            indices.append([i, j])
            values.append(t)
    return {"split:0": np.array(indices, i64).reshape(-1, 2), "split:1": np.array(values),
            "split:2": np.array([len(rows), longest], i64)}


def split_case(name, rows, sep, maxsplit=None):
    g = Graph()
    g.const("input", np.array(rows))
    g.const("sep", np.array(sep))
    attrs = {} if maxsplit is None else {"maxsplit": maxsplit}
    g.node("split", "StringSplitV2", ["input", "sep"], **attrs)
    fam.case(name, g, fetches=fetches_of(g, split_expected(rows, sep, -1 if maxsplit is None else maxsplit)))


# ---- StringSplitV2 (TensorFlow's own test inputs, and edge cases) ----
split_case("string_split_v2_whitespace", ["pigs on the wing", "animals", "", " \t\n "], "")
split_case("string_split_v2_separator", ["1<>2<>3", "<><>4<>5<><>6<>"], "<>")
split_case("string_split_v2_leading_trailing_separators", [",a,", "", "a,,b"], ",")
split_case("string_split_v2_maxsplit", ["1,2,3", "4,5,,6,"], ",", maxsplit=1)
split_case("string_split_v2_maxsplit_whitespace", ["1 2 3", "  4  5    6  "], "", maxsplit=1)
split_case("string_split_v2_maxsplit_zero", ["  a b ", "x"], "", maxsplit=0)

g = Graph()
g.const("input", np.array("a b"))
g.const("sep", np.array(""))
g.node("split", "StringSplitV2", ["input", "sep"])
fam.case("string_split_v2_input_not_vector", g, fetches=["split:1"],
         error=err("InvalidArgument", "split", "StringSplitV2", "input must be a vector"))

g = Graph()
g.const("input", np.array(["a b"]))
g.const("sep", np.array([","]))
g.node("split", "StringSplitV2", ["input", "sep"])
fam.case("string_split_v2_sep_not_scalar", g, fetches=["split:1"],
         error=err("InvalidArgument", "split", "StringSplitV2", "sep must be a scalar"))


# ---- Unique / UniqueWithCounts ----
def unique_expected(x):
    ids, y, idx, count = {}, [], [], []
    for v in x.tolist():
        if v not in ids:
            ids[v] = len(y)
            y.append(v)
            count.append(0)
        idx.append(ids[v])
        count[ids[v]] += 1
    return np.array(y, x.dtype), idx, count


def unique_case(name, op, x, out_idx=i32):
    g = Graph()
    g.const("x", x)
    g.node("u", op, ["x"], T=STRING if x.dtype.kind in "US" else x.dtype.type, out_idx=out_idx)
    y, idx, count = unique_expected(x)
    fetches = {"u:0": y, "u:1": np.array(idx, out_idx)}
    if op == "UniqueWithCounts":
        fetches["u:2"] = np.array(count, out_idx)
    fam.case(name, g, fetches=fetches_of(g, fetches))


unique_case("unique_int32", "Unique", np.array([1, 1, 2, 4, 4, 4, 7, 8, 8], i32))
unique_case("unique_with_counts_int32", "UniqueWithCounts", np.array([1, 1, 2, 4, 4, 4, 7, 8, 8], i32))
unique_case("unique_with_counts_int64_out_idx_int64", "UniqueWithCounts",
            np.array([9, -3, 9, 0, -3, 9, 0], i64), out_idx=i64)
unique_case("unique_float", "Unique", np.array([0.5, -1, 0.5, 2, -1], f32), out_idx=i64)
unique_case("unique_with_counts_strings", "UniqueWithCounts",
            np.array(["the", "cat", "the", "", "a", "", "cat", "the"]), out_idx=i64)

g = Graph()
g.const("x", np.array([[1, 2]], i32))
g.node("u", "Unique", ["x"], T=i32, out_idx=i32)
fam.case("unique_x_not_vector", g, fetches=["u:0"],
         error=err("InvalidArgument", "u", "Unique", "x must be a vector"))

# ---- ReadFile: its errors (constant folding leaves the failing node to the step) ----
g = Graph()
g.const("f", np.array("no_such_file.txt"))
g.node("read", "ReadFile", ["f"])
fam.case("read_file_missing", g, fetches=["read"],
         error=err("NotFound", "read", "ReadFile", "no_such_file.txt"))

g = Graph()
g.const("f", np.array("."))
g.node("read", "ReadFile", ["f"])
fam.case("read_file_directory", g, fetches=["read"],
         error=err("InvalidArgument", "read", "ReadFile", "is a directory"))

g = Graph()
g.const("f", np.array(["a", "b"]))
g.node("read", "ReadFile", ["f"])
fam.case("read_file_filename_not_scalar", g, fetches=["read"],
         error=err("InvalidArgument", "read", "ReadFile", "filename must be a scalar"))

# ---- Word count over two shards: map (split, count per shard), reduce ----
shards = ["the cat sat on the mat\nthe end\n", "  a cat and a dog\n\tthe dog sat\n"]
g = Graph()
g.const("sep", np.array(""))
g.const("axis", np.array(0, i32))
for s, text in enumerate(shards):
    g.const("text%d" % s, np.array([text]))
    g.node("split%d" % s, "StringSplitV2", ["text%d" % s, "sep"])
    g.node("count%d" % s, "UniqueWithCounts", ["split%d:1" % s], T=STRING, out_idx=i32)
g.node("words", "ConcatV2", ["count0:0", "count1:0", "axis"], T=STRING, N=2, Tidx=i32)
g.node("counts", "ConcatV2", ["count0:2", "count1:2", "axis"], T=i32, N=2, Tidx=i32)
g.node("reduce", "Unique", ["words"], T=STRING, out_idx=i64)
g.node("num", "Size", ["reduce:0"], T=STRING, out_type=i32)
g.node("totals", "UnsortedSegmentSum", ["counts", "reduce:1", "num"], T=i32, Tindices=i64, Tnumsegments=i32)
totals = {}
for text in shards:
    for w in text.split():
        totals[w] = totals.get(w, 0) + 1
# First occurrence in shard order: the map keeps each shard's first-occurrence order.
order = []
for text in shards:
    for w in text.split():
        if w not in order:
            order.append(w)
fam.case("word_count_two_shards", g,
         fetches=fetches_of(g, {"reduce:0": np.array(order), "totals": np.array([totals[w] for w in order], i32)}))
