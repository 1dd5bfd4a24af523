"""The server side of a TLS connection, run over memory BIOs between the socket and the frames.

Owns: ``SslTransportLayer`` (the protocol the raw TCP transport talks to: it runs the handshake,
decrypts what arrives straight into the buffers the frame protocol hands out, and encrypts what
the frame protocol writes) and ``SslChannelTransport`` (the transport the frame protocol sees once
the handshake is done).  Does not own the TLS context (``listener_ssl_factory``) nor framing
(``frame_stream``).

Why not the event loop's own TLS: a handshake that fails on the server's side (an expired or
untrusted client certificate, no shared protocol or cipher) must still tell the client why, with
the TLS alert OpenSSL produced; the event loop's TLS transport drops that alert and closes the
socket, so the client saw only a reset.  Here the alert is sent before the socket is closed, as
Kafka's ``SslTransportLayer`` flushes its ``netWriteBuffer`` on a handshake failure (the client then
reports e.g. ``SSL alert number 45``/``46`` instead of a transport error).

Kafka concept: ``org.apache.kafka.common.network.SslTransportLayer`` (an ``SSLEngine`` between the
socket and the channel; here an ``ssl.SSLObject`` over ``ssl.MemoryBIO`` pairs).
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import Iterable
from typing import Any

logger = logging.getLogger("kafkette.network.ssl")

_READ_CHUNK = 256 * 1024  # plaintext pulled per read call when the protocol's buffer is larger


class SslTransportLayer(asyncio.Protocol):
    """Server-side TLS between a raw TCP transport and ``app`` (an ``asyncio.BufferedProtocol``).

    Args:
        context: the listener's server context (``SslFactory.context``: its SNI callback switches a
            handshake to the context in force after a reload).
        app: the frame protocol; its ``connection_made`` is called only once the handshake is done
            (a failed or timed-out handshake closes the connection without it ever seeing one).
        handshake_timeout_s: a handshake not done within this many seconds is cut off (seconds).

    A failed handshake: the alert OpenSSL wrote is sent, then the socket is closed (after the
    write), and the failure logged at INFO as Kafka's ``Selector`` does (``Failed authentication
    with /IP (SSL handshake failed)``).  A peer's ``close_notify`` is end of stream for ``app``.
    """

    def __init__(
        self, context: ssl.SSLContext, app: asyncio.BufferedProtocol, handshake_timeout_s: float
    ) -> None:
        self._context = context
        self._app = app
        self._handshake_timeout_s = handshake_timeout_s
        self._incoming = ssl.MemoryBIO()
        self._outgoing = ssl.MemoryBIO()
        self._sslobj: ssl.SSLObject | None = None
        self._raw: asyncio.Transport | None = None
        self._channel: SslChannelTransport | None = None  # set once the handshake is done
        self._handshake_timer: asyncio.TimerHandle | None = None
        self._reading_paused = False
        self._closed = False

    # -- the raw transport's protocol -------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._raw = transport  # type: ignore[assignment]
        self._sslobj = self._context.wrap_bio(self._incoming, self._outgoing, server_side=True)
        loop = asyncio.get_running_loop()
        self._handshake_timer = loop.call_later(self._handshake_timeout_s, self._handshake_timed_out)
        self._do_handshake()

    def data_received(self, data: bytes) -> None:
        if self._closed:
            return
        self._incoming.write(data)
        if self._channel is None:
            self._do_handshake()
        else:
            self._read_plaintext()

    def eof_received(self) -> bool:
        self._incoming.write_eof()
        if self._channel is not None:
            self._read_plaintext()
            if not self._closed:
                self._app.eof_received()
        return False  # TLS cannot half-close: the raw transport closes

    def connection_lost(self, exc: Exception | None) -> None:
        self._closed = True
        self._cancel_handshake_timer()
        if self._channel is not None:
            self._app.connection_lost(exc)

    def pause_writing(self) -> None:
        if self._channel is not None:
            self._app.pause_writing()

    def resume_writing(self) -> None:
        if self._channel is not None:
            self._app.resume_writing()

    # -- handshake --------------------------------------------------------------------------
    def _do_handshake(self) -> None:
        assert self._sslobj is not None
        try:
            self._sslobj.do_handshake()
        except ssl.SSLWantReadError:
            self._flush()
            return
        except (ssl.SSLError, ValueError) as exc:
            self._handshake_failed(exc)
            return
        self._cancel_handshake_timer()
        self._flush()  # the handshake's last flight (and TLS 1.3 session tickets)
        self._channel = SslChannelTransport(self)
        self._app.connection_made(self._channel)
        if self._incoming.pending and not self._closed:
            self._read_plaintext()

    def _handshake_failed(self, exc: BaseException) -> None:
        logger.info("Failed authentication with /%s (SSL handshake failed: %s)", self._peer_ip(), exc)
        self._cancel_handshake_timer()
        self._flush()  # the alert telling the client why
        self._close_raw()

    def _handshake_timed_out(self) -> None:
        self._handshake_timer = None
        if self._channel is None and not self._closed:
            logger.info("Failed authentication with /%s (SSL handshake timed out)", self._peer_ip())
            self._abort()

    def _cancel_handshake_timer(self) -> None:
        if self._handshake_timer is not None:
            self._handshake_timer.cancel()
            self._handshake_timer = None

    # -- plaintext in -----------------------------------------------------------------------
    def _read_plaintext(self) -> None:
        """Decrypt what has arrived into ``app``'s buffers while it is reading."""
        assert self._sslobj is not None
        sslobj = self._sslobj
        while not self._reading_paused and not self._closed and (self._incoming.pending or sslobj.pending()):
            buffer = self._app.get_buffer(-1)
            want = min(len(buffer), _READ_CHUNK)
            try:
                count = sslobj.read(want, buffer)
            except ssl.SSLWantReadError:
                self._app.buffer_updated(0)
                break
            except ssl.SSLError as exc:
                self._app.buffer_updated(0)
                logger.info("TLS error on connection from %s: %s", self._extra("peername"), exc)
                self._abort()
                break
            if count == 0:  # the peer's close_notify (ssl reads it as 0 bytes): answered with ours
                self._app.buffer_updated(0)
                self._app.eof_received()
                self._close()
                break
            self._app.buffer_updated(count)
        self._flush()  # post-handshake messages (key updates) the reads produced

    def _pause_reading(self) -> None:
        self._reading_paused = True
        if self._raw is not None:
            self._raw.pause_reading()

    def _resume_reading(self) -> None:
        if not self._reading_paused:
            return
        self._reading_paused = False
        if self._raw is not None and not self._closed:
            self._raw.resume_reading()
            # plaintext already received stays in the BIO until read: deliver it outside the caller
            asyncio.get_running_loop().call_soon(self._read_buffered)

    def _read_buffered(self) -> None:
        if self._channel is not None and not self._closed and not self._reading_paused:
            self._read_plaintext()

    # -- plaintext out ----------------------------------------------------------------------
    def _write(self, buffers: Iterable[bytes | bytearray | memoryview]) -> None:
        if self._closed or self._sslobj is None:
            return
        try:
            for buffer in buffers:
                view = memoryview(buffer)
                while view:
                    written = self._sslobj.write(view)
                    view = view[written:]
        except ssl.SSLError as exc:
            logger.info("TLS error on connection from %s: %s", self._extra("peername"), exc)
            self._abort()
            return
        self._flush()

    def _flush(self) -> None:
        if self._outgoing.pending and self._raw is not None and not self._raw.is_closing():
            self._raw.write(self._outgoing.read())

    def _close(self) -> None:
        """Send ``close_notify`` after what is queued, then close the socket once written."""
        if self._closed:
            return
        if self._sslobj is not None and self._channel is not None:
            try:
                self._sslobj.unwrap()
            except ssl.SSLError:
                pass  # the close_notify is written either way; the peer's answer is not awaited
        self._flush()
        self._close_raw()

    def _close_raw(self) -> None:
        self._closed = True
        if self._raw is not None:
            self._raw.close()

    def _abort(self) -> None:
        self._closed = True
        if self._raw is not None:
            self._raw.abort()

    def _peer_ip(self) -> str:
        peer = self._extra("peername")
        return peer[0] if peer else "?"

    def _extra(self, name: str, default: Any = None) -> Any:
        if name == "sslcontext":
            return self._sslobj.context if self._sslobj is not None else self._context
        if name == "ssl_object":
            return self._sslobj
        if name == "peercert":
            return self._sslobj.getpeercert() if self._sslobj is not None else default
        if name == "cipher":
            return self._sslobj.cipher() if self._sslobj is not None else default
        return self._raw.get_extra_info(name, default) if self._raw is not None else default


class SslChannelTransport(asyncio.Transport):
    """What the frame protocol writes to and reads through once the handshake is done.

    ``write``/``writelines`` encrypt at once and hand the records to the socket (one write per
    call); flow control is the socket's (its ``pause_writing``/``resume_writing`` reach the
    protocol).  ``get_extra_info`` answers ``sslcontext``, ``ssl_object``, ``peercert``,
    ``cipher`` and the socket's own keys (``peername``, ``socket``, ...).
    """

    def __init__(self, layer: SslTransportLayer) -> None:
        super().__init__()
        self._layer = layer

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self._layer._write((data,))

    def writelines(self, list_of_data: Iterable[bytes | bytearray | memoryview]) -> None:
        self._layer._write(list_of_data)

    def can_write_eof(self) -> bool:
        return False

    def is_closing(self) -> bool:
        raw = self._layer._raw
        return self._layer._closed or raw is None or raw.is_closing()

    def close(self) -> None:
        self._layer._close()

    def abort(self) -> None:
        self._layer._abort()

    def pause_reading(self) -> None:
        self._layer._pause_reading()

    def resume_reading(self) -> None:
        self._layer._resume_reading()

    def is_reading(self) -> bool:
        return not self._layer._reading_paused

    def get_write_buffer_size(self) -> int:
        raw = self._layer._raw
        return raw.get_write_buffer_size() if raw is not None else 0

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        if self._layer._raw is not None:
            self._layer._raw.set_write_buffer_limits(high, low)

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._layer._extra(name, default)
