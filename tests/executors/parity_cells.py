"""Cells of ordinary Python whose printed output must equal plain ``exec``'s (issue 26): the
everyday standard library, ``__slots__``, ``match`` class patterns and async code."""

from __future__ import annotations

STDLIB = {
    "contextlib": """
import contextlib
with contextlib.suppress(KeyError):
    {}[1]
print('suppressed')
@contextlib.contextmanager
def tag(name):
    print(f'<{name}>')
    try:
        yield name.upper()
    finally:
        print(f'</{name}>')
with tag('b') as t:
    print(t)
with contextlib.ExitStack() as stack:
    stack.callback(print, 'callback ran')
    for n in ('x', 'y'):
        print(stack.enter_context(tag(n)))
with contextlib.nullcontext(5) as v, contextlib.closing(open('f.txt', 'w')) as f:
    f.write('hi')
    print(v)
class Managed(contextlib.AbstractContextManager):
    def __exit__(self, *exc):
        print('exit', exc[0].__name__ if exc[0] else None)
with Managed():
    pass
""",
    "queue": """
import queue
q = queue.Queue(maxsize=2)
q.put(1); q.put_nowait(2)
print(q.full(), q.qsize(), q.get(), q.get_nowait(), q.empty())
try:
    q.get(timeout=0.01)
except queue.Empty:
    print('empty')
p = queue.PriorityQueue()
for item in [(3, 'c'), (1, 'a'), (2, 'b')]:
    p.put(item)
print([p.get()[1] for _ in range(3)])
s = queue.LifoQueue(); s.put('x'); s.put('y'); print(s.get(), s.get())
sq = queue.SimpleQueue(); sq.put(4); print(sq.get(), sq.qsize())
j = queue.Queue(); j.put('job'); j.get(); j.task_done(); j.join(); print('joined')
""",
    "warnings": """
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter('always')
    warnings.warn('first')
    warnings.warn('old', DeprecationWarning)
    warnings.warn('first')
print(len(caught), [w.category.__name__ for w in caught], str(caught[0].message))
with warnings.catch_warnings():
    warnings.simplefilter('error')
    try:
        warnings.warn('now an error', RuntimeWarning)
    except RuntimeWarning as e:
        print('raised', e)
with warnings.catch_warnings(record=True) as caught:
    warnings.filterwarnings('ignore', message='noisy')
    warnings.warn('noisy thing')
    warnings.warn('kept', UserWarning)
print([str(w.message) for w in caught])
warnings.filterwarnings('ignore', category=FutureWarning)
warnings.warn('hidden', FutureWarning)
print('done')
""",
    "stat": """
import stat
print(stat.S_ISDIR(0o040755), stat.S_ISREG(0o100644), stat.filemode(0o100644), stat.S_IMODE(0o100755))
""",
    "decimal": """
from decimal import Decimal, getcontext, localcontext, setcontext, Context, ROUND_HALF_UP
getcontext().prec = 6
print(Decimal(1) / Decimal(7))
with localcontext() as ctx:
    ctx.prec = 3
    print(Decimal(2).sqrt())
print(Decimal('1.005').quantize(Decimal('0.01'), rounding=ROUND_HALF_UP))
setcontext(Context(prec=4))
print(Decimal(1) / Decimal(3), getcontext().prec)
""",
    "singledispatch": """
from functools import singledispatch
@singledispatch
def show(x):
    return f'object {x!r}'
@show.register
def _(x: int):
    return f'int {x}'
@show.register(list)
def _(x):
    return f'list of {len(x)}'
@show.register
def _(x: str | bytes):
    return f'text {x!r}'
print(show(1), show([1, 2]), show('a'), show(b'b'), show(2.5), sep='; ')
print(show.dispatch(bool).__name__, sorted(t.__name__ for t in show.registry))
""",
    "more_modules": """
import difflib, struct, html, shlex, fnmatch, graphlib, numbers, keyword, colorsys, binascii
import collections.abc, textwrap, pprint, types
from abc import ABC, abstractmethod
print(difflib.get_close_matches('appel', ['ape', 'apple', 'peach']))
print(struct.unpack('<hI', struct.pack('<hI', -2, 7)), struct.calcsize('<hI'))
print(html.escape('<a & b>'), shlex.split('a "b c" d'), fnmatch.filter(['a.py', 'b.txt'], '*.py'))
print(list(graphlib.TopologicalSorter({'b': {'a'}, 'c': {'b'}}).static_order()))
print(isinstance(3, numbers.Integral), keyword.iskeyword('match'), binascii.hexlify(b'ab'))
print(colorsys.rgb_to_hsv(1, 0, 0), isinstance({}, collections.abc.Mapping))
class Shape(ABC):
    @abstractmethod
    def area(self): ...
try:
    Shape()
except TypeError as e:
    print('abstract', 'area' in str(e))
ns = types.SimpleNamespace(a=1)
ns.b = 2
print(ns, textwrap.shorten('a b c d e f g', 9))
pprint.pprint({'k': list(range(12)), 'v': 'x' * 30}, width=40)
""",
}

SLOTS_AND_MATCH = {
    "slots": """
class Slotted:
    __slots__ = ('a', '_b')
    def __init__(self):
        self.a = 1
        self._b = 2
o = Slotted()
print(o.a, o._b, Slotted.__slots__, hasattr(o, '__dict__'))
try:
    o.c = 3
except AttributeError as e:
    print('AttributeError', e)
class Child(Slotted):
    __slots__ = 'c'
ch = Child(); ch.c = 5; print(ch.a, ch.c)
from dataclasses import dataclass
@dataclass(slots=True, frozen=True)
class P:
    x: int
    y: int = 0
print(P(1), P.__slots__)
""",
    "match_class": """
from dataclasses import dataclass
@dataclass
class Point:
    x: int
    y: int
@dataclass
class Circle:
    center: Point
    r: float
    format: str = 'svg'
class Node:
    def __init__(self, v, parent=None):
        self.v = v
        self._parent = parent
def describe(s):
    match s:
        case Circle(center=Point(x=0, y=0), r=r):
            return f'circle at the origin, r={r}'
        case Circle(center=c, r=r) if r > 5:
            return f'big circle at {c.x},{c.y}'
        case Circle(center=Point(x=x, y=y) as p, format='png'):
            return f'png circle {x} {y} {p}'
        case Circle(center=_, format=fmt):
            return f'circle as {fmt}'
        case Circle(c, r):
            return 'unreachable'
        case Node(_parent=Node(v=pv), v=v):
            return f'node {v} under {pv}'
        case Node(_parent=None):
            return 'root node'
        case str(zfill=z):
            return z(5)
        case [Point(x=x), *rest]:
            return f'points from x={x}, {len(rest)} more'
        case {'center': Point(y=y)}:
            return f'mapping y={y}'
        case _:
            return 'other'
things = [Circle(Point(0, 0), 1), Circle(Point(1, 2), 9), Circle(Point(3, 4), 1, 'png'),
          Circle(Point(3, 4), 1), Node(2, Node(1)), Node(0), '42', [Point(1, 1), Point(2, 2)],
          {'center': Point(0, 7)}, 3]
for s in things:
    print(describe(s))
""",
}

ASYNC = {
    "asyncio_run": """
import asyncio
async def fetch(i):
    await asyncio.sleep(0.002 * (3 - i))
    return i * 10
async def main():
    print('gathered', await asyncio.gather(*(fetch(i) for i in range(3))))
    q = asyncio.Queue()
    for i in range(3):
        await q.put(i)
    async def drain():
        while not q.empty():
            yield await q.get()
    print([x async for x in drain()])
    try:
        await asyncio.wait_for(asyncio.sleep(5), 0.01)
    except TimeoutError:
        print('timed out inside')
    return 'done'
print(asyncio.run(main()))
class Resource:
    async def __aenter__(self):
        print('enter')
        return self
    async def __aexit__(self, *exc):
        print('exit', exc[0].__name__ if exc[0] else None)
async def use():
    async with Resource():
        print('inside')
    try:
        async with Resource():
            raise KeyError('k')
    except KeyError:
        print('propagated')
asyncio.run(use())
""",
    "top_level_await": """
import asyncio, contextlib
async def square(x):
    await asyncio.sleep(0.001)
    return x * x
print(await asyncio.gather(*(square(i) for i in range(5))))
async def ticker(n):
    for i in range(n):
        yield i
        await asyncio.sleep(0)
print([i async for i in ticker(3)])
async for i in ticker(2):
    print('tick', i)
async with asyncio.timeout(1):
    print(await square(7))
@contextlib.asynccontextmanager
async def opened(name):
    print('open', name)
    yield name.upper()
    print('close', name)
async with contextlib.AsyncExitStack() as stack:
    print(await stack.enter_async_context(opened('a')))
async with asyncio.TaskGroup() as tg:
    tasks = [tg.create_task(square(i)) for i in (2, 3)]
print([t.result() for t in tasks])
lock, event = asyncio.Lock(), asyncio.Event()
async def waiter():
    async with lock:
        await event.wait()
        return 'released'
w = asyncio.create_task(waiter())
await asyncio.sleep(0)
event.set()
print(await w, lock.locked())
""",
}
