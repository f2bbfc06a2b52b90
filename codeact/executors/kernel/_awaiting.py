"""Awaiting host tools in a cell (part of the kernel's one source, see ``__init__``): ``await
f(x)`` is compiled as ``await __codeact_await_call__(f, x)``, which makes a host tool's plain
result awaitable, as in the restricted executor. Stdlib only."""

import ast


class AwaitCalls(ast.NodeTransformer):
    """``await f(x)`` → ``await __codeact_await_call__(f, x)``: host tools (plain functions)
    can be awaited like async tools, as in the restricted executor."""

    def visit_Await(self, node):
        self.generic_visit(node)
        call = node.value
        if isinstance(call, ast.Call):
            call.args.insert(0, call.func)
            call.func = ast.copy_location(ast.Name("__codeact_await_call__", ast.Load()), call)
        return node


class Ready:
    """An awaitable that gives a value at once."""

    def __init__(self, value):
        self.value = value

    def __await__(self):
        return self.value
        yield


def await_call(fn, /, *args, **kwargs):
    """What ``await f(x)`` calls: a host tool's result becomes awaitable."""
    result = fn(*args, **kwargs)
    return Ready(result) if getattr(fn, "__codeact_tool__", False) is True else result
