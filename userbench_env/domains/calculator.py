"""Safe arithmetic for the ``calculate`` tool of airline and retail (never ``eval``).

tau2 checks that the expression uses only digits, ``+ - * / ( ) .`` and spaces, then
evaluates it as Python. :func:`evaluate_arithmetic` gives the same values for every
such expression (including ``//`` and ``**``, which those characters can spell) by
walking the parsed syntax tree, and rejects anything else with Python's own error.
Unlike Python, no intermediate integer may exceed :data:`MAX_RESULT_BITS` (an
``OverflowError``), so no expression can stall the tool.
"""
from __future__ import annotations

import ast
import operator
from typing import Any, Callable

ALLOWED_CHARACTERS = frozenset("0123456789+-*/(). ")

#: Largest integer (in bits) any intermediate result of ``**`` or ``*`` may reach: bounds
#: time and memory of every step (products of powers included; quadratic ``//`` of such
#: numbers stays in milliseconds) while leaving every realistic expression
#: (``2**5000/2**4990``) its Python value. The final value must fit a float anyway.
MAX_RESULT_BITS = 1 << 16


def _power(base: Any, exponent: Any) -> Any:
    if (
        isinstance(base, int)
        and isinstance(exponent, int)
        and exponent > 0
        and base.bit_length() * exponent > MAX_RESULT_BITS
    ):
        raise OverflowError("exponent too large")
    return base**exponent


def _product(left: Any, right: Any) -> Any:
    if isinstance(left, int) and isinstance(right, int) and left.bit_length() + right.bit_length() > MAX_RESULT_BITS:
        raise OverflowError("integer product too large")
    return left * right


_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: _product,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def _value(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_value(node.operand))
    if isinstance(node, ast.BinOp):
        left, right = _value(node.left), _value(node.right)
        if isinstance(node.op, ast.Pow):
            return _power(left, right)
        if type(node.op) in _BINARY:
            return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.Tuple) and not node.elts:
        return ()
    if isinstance(node, ast.Call):
        raise TypeError(f"'{type(_value(node.func)).__name__}' object is not callable")
    raise ValueError("Invalid expression")


def evaluate_arithmetic(expression: str) -> Any:
    """The value of an arithmetic expression made of the allowed characters."""
    tree = ast.parse(expression.strip(" \t"), filename="<string>", mode="eval")
    return _value(tree.body)


def calculate_text(expression: str) -> str:
    """tau2's ``calculate`` result: the value rounded to 2 decimals, as text."""
    if not all(char in ALLOWED_CHARACTERS for char in expression):
        raise ValueError("Invalid characters in expression")
    return str(round(float(evaluate_arithmetic(expression)), 2))
