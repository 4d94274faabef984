"""A small web server: packaged static pages and WebSockets, for people in a browser.

``samuel serve --web-port`` serves the board page with a WebSocket on which every tab
is a cb session; ``samuel match|tournament --web-port`` serves the spectator page.
HTTP is read here (one request a connection, ``Connection: close``), the WebSocket
framing and handshake by the ``websockets`` library's Sans-I/O ``ServerProtocol``
over the server's own streams, so the sessions run on the same loop and under the
same guards (keepalive, write timeout, idle rules) as the TCP dialects.

Who may connect: a page on another site must not drive an engine on localhost
(cross-site WebSocket hijacking), nor may a hostile name that resolves to 127.0.0.1
(DNS rebinding).  On a loopback address the ``Host`` must be a loopback name and
the ``Origin`` that same site; on another address (the user chose to publish the
server) the ``Origin`` must be the site named by the ``Host``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from importlib import resources

from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol
from websockets.typing import Origin

from protocol.context import Writer
from protocol.guard import guard

log = logging.getLogger(__name__)

MAX_REQUEST_HEAD = 16 * 1024
"""Bytes of request line and headers accepted (browsers send 1-2 KB)."""
REQUEST_TIMEOUT = 30.0
"""Seconds a client has to send its request head (a slow-loris peer loses its slot)."""
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
FLOOD_BURST = 1000
"""Messages a WebSocket client may send at once before the rate applies (a pasted
game replays one ``get movelist`` a move, as fast as the replies come)."""
FLOOD_RATE = 200.0
"""Messages a second a client may keep sending; beyond burst and rate it is flooding."""

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}
SECURITY_HEADERS = (
    ("Content-Security-Policy",
     "default-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; "
     "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-cache"),
)
REASONS = {200: "OK", 204: "No Content", 400: "Bad Request", 403: "Forbidden", 404: "Not Found",
           405: "Method Not Allowed", 408: "Request Timeout", 431: "Request Header Fields Too Large",
           503: "Service Unavailable"}


class FloodError(ConnectionError):
    """A WebSocket client sent messages faster than FLOOD_BURST and FLOOD_RATE allow."""


class WebChannel:
    """One WebSocket connection, as text messages.

    ``receive`` reads the socket only when asked, so a client that sends faster than its
    session reads is held back by TCP, as on the line dialects; control frames (ping,
    close) are answered as they are read.
    """

    def __init__(self, proto: ServerProtocol, reader: asyncio.StreamReader,
                 writer: Writer, peer: str, *,
                 flood_burst: int = FLOOD_BURST, flood_rate: float = FLOOD_RATE) -> None:
        self.peer = peer
        self._proto = proto
        self._reader = reader
        self._writer = writer
        self._messages: deque[str] = deque()
        self._parts: list[bytes] = []
        self._tokens = float(flood_burst)
        self._burst = flood_burst
        self._rate = flood_rate
        self._refilled = time.monotonic()
        self.closed = False
        self.close_code: int | None = None
        """The code of the closing handshake (ours or the peer's), once closed."""

    # Sending is synchronous underneath (the framing goes into the writer's buffer), so the
    # cb session's synchronous ``write`` can use it; ``send`` adds the drain.
    def send_now(self, text: str) -> None:
        if self.closed or self._proto.state is not State.OPEN:
            self.closed = True
            return
        self._proto.send_text(text.encode("utf-8", errors="replace"))
        self._flush()

    async def send(self, text: str) -> None:
        self.send_now(text)
        if not self.closed:
            with contextlib.suppress(ConnectionError, OSError, RuntimeError):
                await self._writer.drain()

    async def drain(self) -> None:
        await self._writer.drain()

    async def receive(self) -> str | None:
        """The next text message; None once the connection is closed (by either side).

        Raises FloodError (after closing with 1008) for a client over the flood limits.
        """
        while not self._messages:
            if self.closed:
                return None
            try:
                data = await self._reader.read(65536)
            except (ConnectionError, OSError):
                data = b""
            if not data:
                self._proto.receive_eof()
                self._flush()
                self._finish()
                return None
            self._proto.receive_data(data)
            self._take_events()
            self._flush()
            if self._proto.close_expected() or self._proto.state is State.CLOSED:
                self._finish()
        return self._messages.popleft()

    def _take_events(self) -> None:
        for event in self._proto.events_received():
            if not isinstance(event, Frame):
                continue
            if event.opcode is Opcode.TEXT or event.opcode is Opcode.CONT:
                self._parts.append(bytes(event.data))
                if event.fin:
                    data, self._parts = b"".join(self._parts), []
                    self._admit(data)
            elif event.opcode is Opcode.BINARY:
                self._fail(1003, "binary messages are not accepted: send text lines")
            # PING is answered, and CLOSE replied to, by the protocol object itself.
            if self.closed:
                return

    def _admit(self, data: bytes) -> None:
        now = time.monotonic()
        self._tokens = min(self._burst, self._tokens + (now - self._refilled) * self._rate)
        self._refilled = now
        self._tokens -= 1
        if self._tokens < 0:
            # Raised, not closed here: the handler says so in its dialect, then closes (1008).
            self._messages.clear()
            raise FloodError(f"flood: more than {self._burst} messages at once "
                             f"or {self._rate:g} a second; closing")
        try:
            self._messages.append(data.decode("utf-8"))
        except UnicodeDecodeError as exc:
            self._fail(1007, f"message is not valid UTF-8 (byte 0x{data[exc.start]:02x} "
                             f"at offset {exc.start})")

    def _fail(self, code: int, reason: str) -> None:
        log.info("closing WebSocket %s: %d %s", self.peer, code, reason)
        if self._proto.state is State.OPEN:
            # A close reason is at most 123 bytes.
            self._proto.send_close(code, reason.encode()[:123].decode(errors="ignore"))
            self._flush()
        self.close_code = code
        self._messages.clear()
        self._finish()

    async def close(self, code: int = 1000, reason: str = "") -> None:
        if not self.closed:
            self._fail(code, reason)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._writer.drain(), 5)

    def _flush(self) -> None:
        # An empty chunk is the protocol's end-of-stream mark: the connection is closed
        # when the handler returns, so it needs no half-close of its own.
        for chunk in self._proto.data_to_send():
            if chunk and not self._writer.is_closing():
                self._writer.write(chunk)

    def _finish(self) -> None:
        if not self.closed:
            self.closed = True
            if self.close_code is None:
                self.close_code = self._proto.close_code


SocketHandler = Callable[[WebChannel], Awaitable[None]]


@dataclass(frozen=True)
class HttpRequest:
    method: str
    path: str
    headers: dict[str, str]
    """Lower-case names; a repeated header keeps its last value."""
    raw: bytes


class HttpError(Exception):
    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status
        self.text = text


def parse_request_head(raw: bytes) -> HttpRequest:
    """The request line and headers of ``raw`` (ending in a blank line); HttpError(400) if malformed."""
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        raise HttpError(400, "request head is not ASCII") from None
    lines = text.split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise HttpError(400, f"malformed request line {lines[0][:80]!r}")
    method, target, _version = parts
    if not target.startswith("/"):
        raise HttpError(400, f"request target must be a path, not {target[:80]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            raise HttpError(400, f"malformed header line {line[:80]!r}")
        headers[name.lower()] = value.strip()
    return HttpRequest(method, target.split("?", 1)[0], headers, raw)


def _host_name(host_header: str) -> str:
    """``localhost`` from ``localhost:27533``, ``[::1]`` from ``[::1]:27533``."""
    if host_header.startswith("["):
        return host_header.split("]", 1)[0] + "]"
    return host_header.rsplit(":", 1)[0] if ":" in host_header else host_header


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_host(request: HttpRequest, bind_host: str) -> str:
    """The request's Host header if this server may answer it; HttpError(403) if not.

    Bound to loopback, only loopback names are answered: a DNS-rebinding name
    (evil.example resolving to 127.0.0.1) is refused before any page or socket.
    """
    host = request.headers.get("host", "")
    if not host:
        raise HttpError(400, "request has no Host header")
    if is_loopback(bind_host) and _host_name(host).lower() not in LOOPBACK_NAMES:
        raise HttpError(403, f"Host {host!r} is not this loopback server")
    return host


class WebServer:
    """Serves ``pages`` (URL path to file name in protocol/web/) and ``sockets`` (URL path
    to WebSocket handler) on one port; ``port`` is the real one after ``start``."""

    def __init__(self, host: str, port: int, *, pages: Mapping[str, str],
                 sockets: Mapping[str, SocketHandler], max_message: int = 131072,
                 max_sessions: int = 64, write_timeout: float | None = 60.0,
                 flood_burst: int = FLOOD_BURST, flood_rate: float = FLOOD_RATE) -> None:
        self.host = host
        self.port = port
        self.pages = dict(pages)
        self.sockets = dict(sockets)
        self.max_message = max_message
        self.max_sessions = max_sessions
        self.write_timeout = write_timeout
        self.flood_burst = flood_burst
        self.flood_rate = flood_rate
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._channels = 0
        for name in self.pages.values():  # a missing page is a packaging fault: say so at start
            if not resources.files("protocol.web").joinpath(name).is_file():
                raise FileNotFoundError(f"web page {name!r} is not in the package (protocol/web)")

    @property
    def url(self) -> str:
        host = self.host if self.host not in ("0.0.0.0", "::", "") else "127.0.0.1"
        return f"http://{host if ':' not in host else f'[{host}]'}:{self.port}/"

    async def start(self) -> None:
        try:
            self._server = await asyncio.start_server(self._connection, self.host, self.port,
                                                      limit=MAX_REQUEST_HEAD, reuse_address=True)
        except OSError as exc:
            raise OSError(exc.errno, f"cannot listen for web on {self.host}:{self.port}: "
                                     f"{exc.strerror}") from None
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("serving web pages on %s", self.url)

    async def serve_forever(self) -> None:
        assert self._server is not None, "start() first"
        await self._server.serve_forever()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for t in list(self._tasks):
            t.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=10)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 5)
            self._server = None

    @property
    def active_sockets(self) -> int:
        return self._channels

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        peer = str(writer.get_extra_info("peername"))
        try:
            await self._serve(reader, writer, peer)
        except asyncio.CancelledError:
            pass
        except (ConnectionError, OSError) as exc:
            log.info("web client %s went away: %s", peer, exc)
        except Exception:
            log.exception("web connection from %s failed", peer)
        finally:
            self._tasks.discard(task)
            with contextlib.suppress(Exception):
                writer.close()
                await asyncio.wait_for(writer.wait_closed(), 5)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, peer: str) -> None:
        try:
            try:
                raw = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), REQUEST_TIMEOUT)
            except asyncio.LimitOverrunError:
                raise HttpError(431, f"request head over {MAX_REQUEST_HEAD} bytes") from None
            except asyncio.IncompleteReadError:
                return  # closed before a whole request: nothing to answer
            except TimeoutError:
                raise HttpError(408, f"no whole request within {REQUEST_TIMEOUT:g} s") from None
            request = parse_request_head(raw)
            host = check_host(request, self.host)
            if request.path in self.sockets:
                await self._websocket(request, host, reader, writer, peer)
                return
            if request.method not in ("GET", "HEAD"):
                raise HttpError(405, f"{request.method} is not served: only GET and HEAD")
            if request.path == "/favicon.ico":
                await self._respond(writer, 204, b"", "text/plain", head=True)
                return
            name = self.pages.get(request.path)
            if name is None:
                raise HttpError(404, f"no page at {request.path}")
            body = resources.files("protocol.web").joinpath(name).read_bytes()
            kind = CONTENT_TYPES.get(name[name.rfind("."):], "application/octet-stream")
            await self._respond(writer, 200, body, kind, head=request.method == "HEAD")
        except HttpError as exc:
            log.info("web client %s: %d %s", peer, exc.status, exc.text)
            await self._respond(writer, exc.status, (exc.text + "\n").encode(), "text/plain; charset=utf-8")

    async def _respond(self, writer: asyncio.StreamWriter, status: int, body: bytes, kind: str, *,
                       head: bool = False) -> None:
        lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Error')}",
                 f"Content-Type: {kind}", f"Content-Length: {len(body)}", "Connection: close",
                 *(f"{k}: {v}" for k, v in SECURITY_HEADERS)]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + (b"" if head else body))
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer.drain(), 10)

    def _origins(self, host: str) -> list[Origin | None]:
        """The Origin values a WebSocket is accepted from, for a request naming ``host``."""
        if is_loopback(self.host):
            return [Origin(f"{scheme}://{name}:{self.port}") for scheme in ("http", "https")
                    for name in LOOPBACK_NAMES]
        return [Origin(f"http://{host}"), Origin(f"https://{host}")]

    async def _websocket(self, request: HttpRequest, host: str, reader: asyncio.StreamReader,
                         writer: asyncio.StreamWriter, peer: str) -> None:
        proto = ServerProtocol(origins=self._origins(host), max_size=self.max_message)
        proto.receive_data(request.raw)
        events = proto.events_received()
        if not events or not isinstance(events[0], Request):
            raise HttpError(400, "malformed WebSocket handshake")
        if self._channels >= self.max_sessions:
            response = proto.reject(503, f"server full: {self.max_sessions} sessions, try later\n")
        else:
            response = proto.accept(events[0])
        proto.send_response(response)
        for chunk in proto.data_to_send():
            writer.write(chunk)
        await writer.drain()
        if response.status_code != 101:
            log.info("web client %s refused: %d %s", peer, response.status_code,
                     response.body.decode(errors="replace").strip())
            return
        guarded = guard(writer, self.write_timeout, f"web client {peer}")
        channel = WebChannel(proto, reader, guarded, peer,
                             flood_burst=self.flood_burst, flood_rate=self.flood_rate)
        self._channels += 1
        log.info("WebSocket %s from %s (%d open)", request.path, peer, self._channels)
        try:
            await self.sockets[request.path](channel)
        except FloodError as exc:
            log.info("web client %s: %s", peer, exc)
            await channel.close(1008, str(exc))
        finally:
            self._channels -= 1
            await channel.close(1000, "session ended")
            log.info("WebSocket %s from %s closed (%d open)", request.path, peer, self._channels)


def static_pages(*names: str, index: str | None = None) -> dict[str, str]:
    """URL paths for packaged files: ``/name`` each, and ``/`` for ``index``."""
    pages = {f"/{n}": n for n in names}
    if index is not None:
        pages["/"] = index
    return pages

