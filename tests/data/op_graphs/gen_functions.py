#!/usr/bin/python3
"""Op-graph cases for functions (GraphDef.library): calls by name, nested
calls, PartitionedCall, SymbolicGradient, a declared gradient function,
If / Case / While over functions, recursion with a base case, and the
errors: an undefined function, a recursion without a base case, a failing
node inside a body (named with its function). Expected values are NumPy's.
Run: /usr/bin/python3 tests/data/op_graphs/gen_functions.py"""
import numpy as np

from opgraph import AttrRef, Family, Func, Function, Graph, Shape, Tensor

f32 = np.float32
fam = Family("functions")


def scalar_fn(name, op, x_name="x"):
    """y = op(x)."""
    f = Function(name, inputs=[(x_name, f32)], outputs=[("y", f32)])
    f.node("r", op, [x_name, x_name] if op in ("Mul", "AddV2") else [x_name], T=f32)
    f.ret("y", "r:z:0" if op in ("Mul", "AddV2") else "r:y:0")
    return f


def mul_add():
    f = Function("MulAdd", inputs=[("x", f32), ("y", f32)], outputs=[("out", f32)])
    f.node("mul", "Mul", ["x", "y"], T=f32)
    f.node("one", "Const", value=Tensor(np.array(1, f32)), dtype=f32)
    f.node("add", "AddV2", ["mul:z:0", "one:output:0"], T=f32)
    f.ret("out", "add:z:0")
    return f


def cube():
    f = Function("Cube", inputs=[("x", f32)], outputs=[("y", f32)])
    f.node("s", "SquareIt", ["x"])
    f.node("c", "Mul", ["s:y:0", "x"], T=f32)
    f.ret("y", "c:z:0")
    return f


a = np.array([[1.5, -2.0], [3.0, 0.5]], f32)
b = np.array([[2.0, 4.0], [-1.0, 8.0]], f32)

# A call by name, its result used by a normal node.
g = Graph()
g.const("a", a)
g.const("b", b)
g.node("call", "MulAdd", ["a", "b"])
g.node("out", "Neg", ["call"], T=f32)
g.function(mul_add())
fam.case("call_by_name", g, fetches={"call:0": a * b + 1, "out:0": -(a * b + 1)})

# Nested calls, directly and through PartitionedCall / StatefulPartitionedCall.
g = Graph()
g.const("a", a)
g.node("c", "Cube", ["a"])
g.node("p", "PartitionedCall", ["a"], Tin=[f32], Tout=[f32], f=Func("Cube"))
g.node("sp", "StatefulPartitionedCall", ["a"], Tin=[f32], Tout=[f32], f=Func("Cube"))
g.function(scalar_fn("SquareIt", "Mul"))
g.function(cube())
fam.case("nested_and_partitioned_call", g, fetches={"c:0": a ** 3, "p:0": a ** 3, "sp:0": a ** 3})

# A polymorphic function with a list argument: the sum of N tensors of type T.
g = Graph()
g.const("i", np.array([1, 2, 3], np.int32))
g.const("j", np.array([10, 20, 30], np.int32))
g.node("s", "SumN", ["i", "j", "i"], T=np.int32, N=3)
f = Function("SumN", inputs=[("xs", "T", "N")], outputs=[("sum", "T")], attrs=[("T", "type"), ("N", "int")])
f.node("addn", "AddN", ["xs"], T=AttrRef("T"), N=AttrRef("N"))
f.ret("sum", "addn:sum:0")
g.function(f)
fam.case("polymorphic_list_argument", g, fetches={"s:0": np.array([12, 24, 36], np.int32)})

# SymbolicGradient of MulAdd: (x, y, dout) -> (y * dout, x * dout).
g = Graph()
g.const("a", a)
g.const("b", b)
g.const("d", np.full((2, 2), 0.5, f32))
g.node("grad", "SymbolicGradient", ["a", "b", "d"], Tin=[f32, f32, f32], Tout=[f32, f32], f=Func("MulAdd"))
g.function(mul_add())
fam.case("symbolic_gradient", g, fetches={"grad:0": b * 0.5, "grad:1": a * 0.5})

# If and While over functions; the loop body calls a function.
g = Graph()
g.const("a", a)
g.const("t", np.array(True))
g.const("f", np.array(False))
g.node("if_t", "StatelessIf", ["t", "a"], Tcond=np.bool_, Tin=[f32], Tout=[f32],
       then_branch=Func("SquareIt"), else_branch=Func("Negate"))
g.node("if_f", "If", ["f", "a"], Tcond=np.bool_, Tin=[f32], Tout=[f32],
       then_branch=Func("SquareIt"), else_branch=Func("Negate"))
g.const("zero", np.array(0, f32))
g.node("loop", "While", ["zero", "a"], T=[f32, f32], cond=Func("Below5"), body=Func("Step"))
g.function(scalar_fn("SquareIt", "Mul"))
g.function(scalar_fn("Negate", "Neg"))
cond = Function("Below5", inputs=[("i", f32), ("v", f32)], outputs=[("c", np.bool_)])
cond.node("five", "Const", value=Tensor(np.array(5, f32)), dtype=f32)
cond.node("lt", "Less", ["i", "five:output:0"], T=f32)
cond.ret("c", "lt:z:0")
g.function(cond)
step = Function("Step", inputs=[("i", f32), ("v", f32)], outputs=[("i2", f32), ("v2", f32)])
step.node("one", "Const", value=Tensor(np.array(1, f32)), dtype=f32)
step.node("inc", "AddV2", ["i", "one:output:0"], T=f32)
step.node("sq", "SquareIt", ["v"])
step.node("half", "Const", value=Tensor(np.array(0.5, f32)), dtype=f32)
step.node("scaled", "Mul", ["sq:y:0", "half:output:0"], T=f32)
step.ret("i2", "inc:z:0")
step.ret("v2", "scaled:z:0")
g.function(step)
v = a.copy()
for _ in range(5):
    v = v * v * f32(0.5)
fam.case("if_and_while", g, fetches={"if_t:0": a * a, "if_f:0": -a, "loop:0": np.array(5, f32), "loop:1": v},
         tolerance=(1e-6, 1e-6))

# Recursion with a base case: n <= 1 ? 1 : n * Fact(n - 1).
g = Graph()
g.const("n", np.array(6, f32))
g.node("fact", "Fact", ["n"])
fact = Function("Fact", inputs=[("n", f32)], outputs=[("f", f32)])
fact.node("one", "Const", value=Tensor(np.array(1, f32)), dtype=f32)
fact.node("le", "LessEqual", ["n", "one:output:0"], T=f32)
fact.node("sw", "Switch", ["n", "le:z:0"], T=f32)
fact.node("base", "OnesLike", ["sw:output_true:0"], T=f32)
fact.node("nm1", "Sub", ["sw:output_false:0", "one:output:0"], T=f32)
fact.node("rec", "Fact", ["nm1:z:0"])
fact.node("prod", "Mul", ["sw:output_false:0", "rec:f:0"], T=f32)
fact.node("merge", "Merge", ["base:y:0", "prod:z:0"], T=f32, N=2)
fact.ret("f", "merge:output:0")
g.function(fact)
fam.case("recursion_with_base_case", g, fetches={"fact:0": np.array(720, f32)})

# Errors.
g = Graph()
g.const("a", a)
g.node("call", "NoSuchFunction", ["a"])
fam.case("undefined_function", g, fetches=["call:0"], error=["NotFound", "node 'call'", "NoSuchFunction"])

g = Graph()
g.const("a", a)
g.node("call", "Forever", ["a"])
fwd = Function("Forever", inputs=[("x", f32)], outputs=[("y", f32)])
fwd.node("again", "Forever", ["x"])
fwd.node("plus", "AddV2", ["again:y:0", "x"], T=f32)
fwd.ret("y", "plus:z:0")
g.function(fwd)
fam.case("recursion_without_base_case", g, fetches=["call:0"],
         error=["InvalidArgument", "function 'Forever'", "recursive without a base case"])

g = Graph()
g.const("a", np.array([1, 2, 3], f32))
g.node("call", "ToPairs", ["a"])
pairs = Function("ToPairs", inputs=[("x", f32)], outputs=[("y", f32)])
pairs.node("shape", "Const", value=Tensor(np.array([-1, 2], np.int32)), dtype=np.int32)
pairs.node("r", "Reshape", ["x", "shape:output:0"], T=f32, Tshape=np.int32)
pairs.ret("y", "r:output:0")
g.function(pairs)
fam.case("error_inside_body", g, fetches=["call:0"],
         error=["InvalidArgument", "node 'call' (ToPairs)", "node 'r' (Reshape) in function 'ToPairs'"])

# The same failure when the value is only known at run time (a placeholder
# fed by --input would do; a Variable's value is not known to shape
# inference): the inlined node is named with its function.
g = Graph()
g.node("v", "VariableV2", dtype=f32, shape=Shape(None))
g.const("init", np.array([1, 2, 3], f32))
g.node("assign", "Assign", ["v", "init"], T=f32, validate_shape=False)
g.node("call", "ToPairs", ["v"])
g.function(pairs)
fam.case("error_inside_body_at_run_time", g, fetches=["call:0"], init=["assign"],
         error=["InvalidArgument", "node 'call/r' (Reshape) in function 'ToPairs'"])
