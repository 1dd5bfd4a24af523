"""``create_ssl_context``: a client TLS context from PEM files, for the SDK's ``ssl_context``.

Owns: building a Python ``ssl.SSLContext`` for a client from the usual file arguments (the
certificate authorities to trust, and a certificate and key for mutual TLS).  Does not own
Kafka's ``ssl.*`` client properties (``kafkette.common.security.ssl_factory.ssl_client_context``
reads those for ``--command-config``).

Kafka concept: the client side of ``SslFactory``; the shape of aiokafka's
``aiokafka.helpers.create_ssl_context``.
"""

from __future__ import annotations

import ssl


def create_ssl_context(
    *,
    cafile: str | None = None,
    capath: str | None = None,
    cadata: str | None = None,
    certfile: str | None = None,
    keyfile: str | None = None,
    password: str | None = None,
    check_hostname: bool = True,
) -> ssl.SSLContext:
    """A client TLS context: the server's certificate checked against the given authorities (the
    system's when none is given) and, with ``check_hostname``, against the host connected to.

    Args:
        cafile, capath, cadata: PEM certificate authorities (a file, a directory, or PEM text).
        certfile, keyfile, password: the client's PEM certificate chain and private key (and the
            key's password), presented when the listener asks for one (``ssl.client.auth``).
        check_hostname: check the server certificate names the host (Kafka's
            ``ssl.endpoint.identification.algorithm=https``, its default).

    Returns:
        An ``ssl.SSLContext`` for the ``ssl_context`` argument of Producer, Consumer, AdminClient.

    Raises:
        OSError / ssl.SSLError: a file that cannot be read or is not PEM.
    """
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=cafile, capath=capath, cadata=cadata)
    context.check_hostname = check_hostname
    if certfile is not None:
        context.load_cert_chain(certfile, keyfile, password)
    return context
