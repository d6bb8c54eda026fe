# attnlab_printers.py — gdb pretty-printers for attnlab's tensors, so that `print t` shows numbers, not pointers.
#
# Without them, `print t` on an attnlab::Tensor shows a std::shared_ptr to a TensorNode, and getting at the
# numbers means walking std::vector internals by hand. With them:
#     (gdb) print Q
#     $1 = Tensor [1, 7, 128], float32, op add = {-0.4656, -0.5402, -1.537, -0.7953, … 884 more}
#     (gdb) print Q.node_._M_ptr->shape
#     $2 = Shape [1, 7, 128]
# The first `attnlab-max-values` numbers (default 12, in row-major order) are shown; `set attnlab-max-values 40`
# shows more; `print t.node_._M_ptr->value` shows the whole std::vector, `print t.node_._M_ptr->grad` the gradient.
#
# The type names carry the inline namespace of the precision (src/tensor/real.h): attnlab::f32::Tensor in the
# trainer, attnlab::f64::Tensor in the gradient checks; both are matched.
# Load it with `source tools/gdb/attnlab_printers.py`, or start gdb with `-x tools/gdb/gdbinit`.
# gdb runs this in its own Python (gdb 13: Python 3), which needs nothing but the `gdb` module.

import gdb
import gdb.printing


class _MaxValues(gdb.Parameter):
    """How many numbers `print` shows of an attnlab::Tensor (the rest are counted)."""

    set_doc = "Set how many numbers of an attnlab::Tensor `print` shows."
    show_doc = "Show how many numbers of an attnlab::Tensor `print` shows."

    def __init__(self):
        super().__init__("attnlab-max-values", gdb.COMMAND_DATA, gdb.PARAM_ZUINTEGER)
        self.value = 12


_max_values = _MaxValues()


def _precision(type_name):
    return "float64" if "::f64::" in type_name else "float32"


def _shape_sizes(shape):
    """The sizes of an attnlab::Shape value: sizes_ is a std::array<int64_t, 4>, rank_ says how many count."""
    rank = int(shape["rank_"])
    elements = shape["sizes_"]["_M_elems"]
    return [int(elements[axis]) for axis in range(max(0, min(rank, 4)))]


def _shape_text(shape):
    return "[" + ", ".join(str(size) for size in _shape_sizes(shape)) + "]"


def _vector_items(vector, limit):
    """The first `limit` elements of a libstdc++ std::vector, and its length."""
    start = vector["_M_impl"]["_M_start"]
    finish = vector["_M_impl"]["_M_finish"]
    length = int(finish - start) if int(start) != 0 else 0
    return [start[i] for i in range(min(length, limit))], length


def _number(value):
    return "%.4g" % float(value)


def _node_text(node):
    """One line for a TensorNode: shape, precision, autograd facts, the first numbers."""
    shape = _shape_text(node["shape"])
    values, count = _vector_items(node["value"], int(_max_values.value))
    facts = [shape, _precision(str(node.type.strip_typedefs()))]
    if bool(node["requires_grad"]):
        facts.append("requires_grad")
    _, grad_count = _vector_items(node["grad"], 0)
    if grad_count:
        facts.append("has grad")
    op = node["op"].string() if int(node["op"]) != 0 else "leaf"
    if op != "leaf":
        facts.append("op " + op)
    numbers = ", ".join(_number(v) for v in values)
    if count > len(values):
        numbers += (", " if numbers else "") + "… %d more" % (count - len(values))
    return ", ".join(facts) + " = {" + numbers + "}"


class TensorPrinter:
    """attnlab::f32::Tensor / attnlab::f64::Tensor: a handle (std::shared_ptr<TensorNode> node_)."""

    def __init__(self, value):
        self.value = value

    def to_string(self):
        pointer = self.value["node_"]["_M_ptr"]
        if int(pointer) == 0:
            return "Tensor (empty handle)"
        return "Tensor " + _node_text(pointer.dereference())


class TensorNodePrinter:
    def __init__(self, value):
        self.value = value

    def to_string(self):
        return "TensorNode " + _node_text(self.value)


class ShapePrinter:
    def __init__(self, value):
        self.value = value

    def to_string(self):
        return "Shape " + _shape_text(self.value)


def build_printer():
    printer = gdb.printing.RegexpCollectionPrettyPrinter("attnlab")
    printer.add_printer("Tensor", r"^attnlab::(f32|f64)::Tensor$", TensorPrinter)
    printer.add_printer("TensorNode", r"^attnlab::(f32|f64)::TensorNode$", TensorNodePrinter)
    printer.add_printer("Shape", r"^attnlab::(f32|f64)::Shape$", ShapePrinter)
    return printer


gdb.printing.register_pretty_printer(gdb.current_objfile(), build_printer(), replace=True)
