"""The kernel's link to the host (part of the kernel's one source, see ``__init__``): frames
of length-prefixed JSON, read and written with the cell's signals held off, and the cell's
output captured at the file-descriptor level and streamed in bounded chunks. Stdlib only."""

import codecs
import io
import json
import os
import select
import signal
import struct
import sys
import threading

HEADER = struct.Struct(">I")
MAX_FRAME = 16 * 1024 * 1024
HELD_SIGNALS = {signal.SIGALRM, signal.SIGINT}


class FrameTooLarge(ValueError):
    """A message does not fit in one frame (MAX_FRAME bytes of JSON)."""


def frame(msg):
    """One frame (header + JSON body) for msg; FrameTooLarge past MAX_FRAME."""
    body = json.dumps(msg, separators=(",", ":"), default=str).encode("utf-8")
    if len(body) > MAX_FRAME:
        raise FrameTooLarge(f"{len(body)} bytes of JSON, over the {MAX_FRAME}-byte frame limit")
    return HEADER.pack(len(body)) + body


class Channel:
    def __init__(self, wfd, rfile):
        self.wfd = wfd
        self.rfile = rfile
        self.lock = threading.Lock()

    def send(self, msg):
        self.send_frame(frame(msg))

    def send_frame(self, data):
        # os.write may write less than asked (gVisor does on pipes past 64 KiB): loop, with the
        # timeout and interrupt signals held so that no frame is left half written.
        view = memoryview(data)
        old = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
        try:
            with self.lock:
                while view:
                    view = view[os.write(self.wfd, view) :]
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)

    def recv(self):
        """The next frame. The wait for it may be interrupted (a deadline, SIGINT); reading it
        may not: a timeout that landed between a frame's header and its body would leave the
        rest of the frame to be read as the next header."""
        poller = select.poll()
        poller.register(self.rfile.fileno(), select.POLLIN)
        while not poller.poll():
            pass
        old = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
        try:
            header = self._exactly(HEADER.size)
            (n,) = HEADER.unpack(header)
            if n > MAX_FRAME:
                raise SystemExit("oversized frame from host")
            data = self._exactly(n)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        return json.loads(data)

    def _exactly(self, n):
        data = b""
        while len(data) < n:
            chunk = self.rfile.read(n - len(data))
            if not chunk:
                raise SystemExit(0)
            data += chunk
        return data


class Output:
    """Counts and forwards what the cell writes (fd-level, so subprocesses are captured too)."""

    def __init__(self, channel, cap):
        self.channel = channel
        self.cap = cap
        self.size = 0
        self.truncated = False
        self.parts = {"stdout": [], "stderr": []}
        self.lock = threading.Lock()
        self.fds = {}
        self.marks = {"stdout": threading.Event(), "stderr": threading.Event()}
        self.marker = "\x00codeact-drain-" + os.urandom(8).hex() + "\x00"

    def reset(self):
        with self.lock:
            self.size = 0
            self.truncated = False
            self.parts = {"stdout": [], "stderr": []}

    def add(self, name, text):
        with self.lock:
            room = self.cap - self.size
            if room <= 0:
                self.truncated = True
                return
            if len(text) > room:
                text = text[:room]
                self.truncated = True
            self.size += len(text)
            self.parts[name].append(text)
        self.channel.send({"op": "stream", "name": name, "text": text})

    def pump(self, fd, name):
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        held = ""
        marker = self.marker
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                return
            if not data:
                return
            text = held + decoder.decode(data)
            held = ""
            while marker in text:
                before, text = text.split(marker, 1)
                if before:
                    self.add(name, before)
                self.marks[name].set()
            keep = max((i for i in range(1, len(marker)) if text.endswith(marker[:i])), default=0)
            if keep:
                text, held = text[:-keep], text[-keep:]
            if text:
                self.add(name, text)

    def drain(self):
        """Wait until everything written so far went through the pipes (a marker round trip)."""
        sys.stdout.flush()
        sys.stderr.flush()
        for name, fd in self.fds.items():
            self.marks[name].clear()
            os.write(fd, self.marker.encode())
        for name in self.fds:
            self.marks[name].wait(2)


def capture_fds(output):
    for fd, name in ((1, "stdout"), (2, "stderr")):
        r, w = os.pipe()
        os.dup2(w, fd)
        os.close(w)
        output.fds[name] = fd
        start_thread(output.pump, r, name)
    sys.stdout = io.TextIOWrapper(
        os.fdopen(1, "wb", 0), encoding="utf-8", line_buffering=True, write_through=True
    )
    sys.stderr = io.TextIOWrapper(
        os.fdopen(2, "wb", 0), encoding="utf-8", line_buffering=True, write_through=True
    )


def start_thread(target, *args):
    """A daemon thread that never receives SIGALRM/SIGINT (it inherits them blocked): those
    must reach the main thread only while it may be interrupted, never in the middle of reading
    a frame, where the kernel would otherwise hand them to another thread at once."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
    try:
        threading.Thread(target=target, args=args, daemon=True).start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def result_frame(result, nonce):
    """The result frame (echoing the cell's nonce); past the frame limit, a slim result that
    says what was dropped."""
    try:
        return frame({"op": "result", **result, "nonce": nonce})
    except FrameTooLarge as exc:
        problem = f"the cell's result was too large to send ({exc})"
    slim = {
        "op": "result",
        "nonce": nonce,
        "stdout": result["stdout"][-100_000:],
        "stderr": result["stderr"][-100_000:],
        "timed_out": result["timed_out"],
        "truncated": True,
        "value": result["value"],
        "duration_s": result["duration_s"],
        "images": [],
        "is_final_answer": False,
        "final_answer": None,
        "error": {
            "type": "FrameTooLarge",
            "message": problem + "; figures and the final answer were dropped",
            "traceback": "FrameTooLarge: " + problem,
        },
    }
    return frame(slim)
