"""A loopback TCP proxy that can cut the link it carries: the fault suite puts it between the code and a
real server (moto's DynamoDB, Postgres) and switches it between `forward`, `refuse` (connections are
accepted and closed at once, as a stopped server's port answers), `blackhole` (accepted, never
answered: a cut network path) and `drop` (open links are cut, new ones forwarded again afterwards).

Runs in its own thread with its own event loop, so synchronous clients (boto3) and async ones (psycopg)
in the test's loop both go through it."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Iterator
from typing import Literal

Mode = Literal["forward", "refuse", "blackhole"]
CHUNK = 65536


class TcpProxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.mode: Mode = "forward"
        self.connections = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="tcp-proxy", daemon=True)
        self._writers: set[asyncio.StreamWriter] = set()
        self._server: asyncio.Server | None = None
        self.port = 0

    def start(self) -> TcpProxy:
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._start(), self._loop)
        future.result(timeout=5)
        return self

    async def _start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def set_mode(self, mode: Mode) -> None:
        """Switches the mode; every open link is cut, as a failing network or server cuts them."""
        self.mode = mode
        asyncio.run_coroutine_threadsafe(self._cut_all(), self._loop).result(timeout=5)

    async def _cut_all(self) -> None:
        for writer in list(self._writers):
            with contextlib.suppress(Exception):
                transport = writer.transport
                sock = transport.get_extra_info("socket")
                if sock is not None:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                transport.abort()
        self._writers.clear()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self._writers.add(writer)
        try:
            if self.mode == "refuse":
                writer.transport.abort()
                return
            if self.mode == "blackhole":
                while not reader.at_eof():
                    if not await reader.read(CHUNK):
                        break
                return
            try:
                up_reader, up_writer = await asyncio.open_connection(*self.target)
            except OSError:
                writer.transport.abort()
                return
            self._writers.add(up_writer)
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        finally:
            self._writers.discard(writer)
            with contextlib.suppress(Exception):
                writer.close()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(CHUNK):
                if self.mode != "forward":
                    writer.transport.abort()
                    return
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            self._writers.discard(writer)
            with contextlib.suppress(Exception):
                writer.close()

    def stop(self) -> None:
        async def close() -> None:
            await self._cut_all()
            if self._server is not None:
                self._server.close()
                await self._server.wait_closed()

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(close(), self._loop).result(timeout=5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)


@contextlib.contextmanager
def tcp_proxy(host: str, port: int) -> Iterator[TcpProxy]:
    proxy = TcpProxy(host, port).start()
    try:
        yield proxy
    finally:
        proxy.stop()
