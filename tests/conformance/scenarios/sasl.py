"""SASL requests on a listener without SASL (both clusters' listeners are PLAINTEXT): SaslHandshake
at v0 and v1 and SaslAuthenticate at v0-v2 are refused ILLEGAL_SASL_STATE, SaslAuthenticate with
Kafka's "after successful authentication" message, and the connection keeps serving."""

from __future__ import annotations

from typing import Any

from kafkette.protocol.apis.sasl import SaslAuthenticateRequest, SaslHandshakeRequest
from tests.conformance.catalogue import scenario
from tests.conformance.target import Target, code_name


@scenario("sasl/handshake-on-a-plaintext-listener")
def _handshake(t: Target) -> Any:
    """SaslHandshake v0 and v1 for PLAIN and an unknown mechanism: ILLEGAL_SASL_STATE, no mechanisms."""
    out = {}
    for version in (0, 1):
        for mechanism in ("PLAIN", "NO-SUCH-MECHANISM"):
            answer = t.call("SaslHandshake", version, SaslHandshakeRequest(mechanism=mechanism))
            out[f"v{version}-{mechanism}"] = [code_name(answer.error_code), list(answer.mechanisms)]
    out["then_metadata_brokers"] = len(t.metadata([]).brokers)  # the connection keeps serving
    return out


@scenario("sasl/authenticate-on-a-plaintext-listener")
def _authenticate(t: Target) -> Any:
    """SaslAuthenticate v0-v2 with a PLAIN token: ILLEGAL_SASL_STATE with Kafka's message."""
    out = {}
    for version in (0, 1, 2):
        answer = t.call("SaslAuthenticate", version, SaslAuthenticateRequest(auth_bytes=b"\x00u\x00p"))
        out[f"v{version}"] = {
            "error": code_name(answer.error_code),
            "message": answer.error_message,
            "auth_bytes": bytes(answer.auth_bytes).hex(),
            "session_lifetime_ms": getattr(answer, "session_lifetime_ms", None) if version >= 1 else None,
        }
    return out
