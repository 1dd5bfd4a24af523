"""The Kafka listener's codec: Kafka's binary protocol in, the broker's request structs out.

Owns: ``KafkaWireCodec`` (a frame's body: the request header at v1 or v2, then the body at
the API's version, flexible or not; ApiVersions answered here, from ``KAFKA_APIS`` and the
broker's feature flags (``FeatureFlags``, KIP-584); every
other API translated by ``kafka_translation`` into the request the msgpack listener would
hand the broker) and ``KafkaReply`` (the answer: the response header at v0 or v1, then the
body at the request's version, its record sets passed to the socket uncopied).

What is answered and what is closed, as Kafka's ``SocketServer``/``KafkaApis`` do: an
ApiVersions request at a version this listener lacks is answered at v0 with
UNSUPPORTED_VERSION and the supported ranges (KIP-511), so the client can retry at one it
shares, and one at v3+ whose client software name or version is not of KIP-511's form with
INVALID_REQUEST and no ranges; a request the listener refuses before the broker sees it
(``kafka_translation.REFUSALS``: a DescribeCluster asking for another endpoint type than BROKER,
KIP-919, with UNSUPPORTED_ENDPOINT_TYPE or MISMATCHED_ENDPOINT_TYPE; a SyncGroup v5+ without its
protocol type or name with INCONSISTENT_GROUP_PROTOCOL) is answered here; a string that is not
UTF-8 is read with U+FFFD in place of each bad sequence, as Kafka reads it; any other unknown API
or version, and a body that does not parse, closes that connection alone.  An error escaping the
broker's handler is answered at the top-level ``error_code`` of the API's response where it has one.
Pure code, no I/O.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from kafkette.protocol.api_keys import KAFKA_APIS, ApiKey, ApiSpec
from kafkette.protocol.apis.api_versions import (
    ApiVersionsResponse,
    ApiVersionsResponseKey,
    FinalizedFeatureKey,
    SupportedFeatureKey,
)
from kafkette.protocol.errors import Errors, default_message
from kafkette.protocol.framing import LENGTH, Buffers, FrameError, RequestHeader
from kafkette.protocol.kafka_binary import I32, BinaryReader
from kafkette.protocol.kafka_error_responses import (
    DEFAULT_MESSAGE_TOP_LEVEL_APIS,
    ERROR_RESPONSES,
    EXCEPTION_MESSAGE_APIS,
)
from kafkette.protocol.kafka_header import (
    KafkaHeaderError,
    decode_request_header,
    encode_response_header,
    peek_api,
    request_header_version,
    response_header_version,
)
from kafkette.protocol.kafka_schema import KafkaSchemaError, KafkaStruct
from kafkette.protocol.kafka_translation import REFUSALS, UnparseableRequestError, translation_of
from kafkette.protocol.wire_codec import Decoded, RequestDecodeError

logger = logging.getLogger(__name__)


class FeatureFlags(NamedTuple):
    """What an ApiVersions answer says of feature flags (KIP-584).

    Attributes:
        supported: ``{feature: (min level, max level)}`` the broker supports.
        finalized: ``{feature: level}`` finalized in the cluster (a level 0 is left out).
        finalized_epoch: the metadata offset the finalized levels are as of; -1 when not known.
    """

    supported: dict[str, tuple[int, int]]
    finalized: dict[str, int]
    finalized_epoch: int


NO_FEATURES = FeatureFlags({}, {}, -1)


def api_versions_response(
    error_code: int = 0, version: int = 0, features: FeatureFlags = NO_FEATURES
) -> ApiVersionsResponse:
    """The ApiVersions answer: every API of ``KAFKA_APIS`` with its version range and, from v3,
    the feature flags as Kafka's ``ApiVersionsResponse.Builder`` writes them: before v4 a supported
    feature whose minimum level is 0 is left out (old clients fail on it), and a finalized level
    of 0 is left out at every version.

    Args:
        error_code: the answer's error (features are only given with none).
        version: the version it is answered at.
        features: the broker's feature flags.
    """
    out = ApiVersionsResponse(
        error_code=error_code,
        api_keys=[
            ApiVersionsResponseKey(api_key=api.key, min_version=api.min_version, max_version=api.max_version)
            for api in sorted(KAFKA_APIS.values(), key=lambda a: a.key)
        ],
    )
    if error_code == 0 and version >= 3:
        out.supported_features = [
            SupportedFeatureKey(name=name, min_version=low, max_version=high)
            for name, (low, high) in features.supported.items()
            if low > 0 or version >= 4
        ]
        out.finalized_features = [
            FinalizedFeatureKey(name=name, max_version_level=level, min_version_level=level)
            for name, level in features.finalized.items()
            if level != 0
        ]
        out.finalized_features_epoch = features.finalized_epoch
    return out


_SOFTWARE_NAME_OR_VERSION = re.compile(r"[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?")


def _software_name_or_version_ok(value: str | None) -> bool:
    """KIP-511: an ApiVersions v3+ client software name or version starts and ends with an ASCII
    letter or digit, with ``-`` and ``.`` inside (Kafka's ``ApiVersionsRequest.isValid``)."""
    return value is not None and _SOFTWARE_NAME_OR_VERSION.fullmatch(value) is not None


@dataclass(slots=True)
class KafkaReply:
    """The way back of one Kafka request.

    Attributes:
        correlation_id: echoed in the response header.
        api / version: the API and the version the client asked for (the answer's version).
        request: the decoded Kafka request (some translations read it), or None.
        translate: True while the answer is to be the broker's, translated by ``TRANSLATIONS``;
            False once this codec answers by itself (ApiVersions, a refusal, an error answer).
    """

    correlation_id: int
    api: ApiSpec
    version: int
    request: Any = None
    translate: bool = True

    @property
    def name(self) -> str:
        return self.api.name

    def encode(self, response: Any) -> Buffers:
        """The answer frame: length, response header, body (``response`` is the broker's response
        struct, or this codec's own answer when ``translate`` is False).

        Raises:
            KafkaSchemaError: the answer does not fit the version's schema.
        """
        if self.translate:
            response = translation_of(self.api.key).to_kafka(response, self.version, self.request)
        flexible = self.api.flexible(self.version)
        head = encode_response_header(self.correlation_id, response_header_version(self.api.key, flexible))
        parts = response.encode(self.version, flexible)
        size = len(head) + sum(len(p) for p in parts)
        return [LENGTH.pack(size) + head, *parts]

    def error_response(self, code: Errors, message: str | None = None) -> KafkaStruct | None:
        """The API's answer to the request failed as a whole with ``code``, as Kafka's
        ``AbstractRequest.getErrorResponse`` builds it: the error on every item the request named
        (``kafka_error_responses``), else the response with ``code`` as its top-level error; None
        when neither fits (no decoded request and no top-level field).  The answer is then this
        codec's own (``translate`` off).

        Args:
            code: the error of the whole request.
            message: the failure's message as ``ApiError.fromThrowable`` keeps it
                (``errors.api_error_message``), or None; written only by the APIs whose
                ``getErrorResponse`` writes it (``EXCEPTION_MESSAGE_APIS``), at the top level too
                (DescribeCluster); DescribeQuorum's top level carries the error's own message.
        """
        if self.api.key not in EXCEPTION_MESSAGE_APIS:
            message = None
        build = ERROR_RESPONSES.get(self.api.key)
        if build is not None and self.request is not None:
            self.translate = False
            return build(self.request, self.version, int(code), message)
        fields = self.api.response._plan(self.version, self.api.flexible(self.version))
        if not any(f.name == "error_code" for f, _ in fields):
            return None
        self.translate = False
        out = self.api.response()
        out.error_code = int(code)  # type: ignore[attr-defined]
        if self.api.key in DEFAULT_MESSAGE_TOP_LEVEL_APIS:
            message = default_message(code)
        # an API whose getErrorResponse writes ApiError.message() writes null when it is null
        if any(f.name == "error_message" for f, _ in fields) and (
            message is not None or self.api.key in EXCEPTION_MESSAGE_APIS
        ):
            out.error_message = message  # type: ignore[attr-defined]
        return out


class KafkaWireCodec:
    """Kafka's binary protocol (see the module docstring).

    Args:
        listener_name: the listener's name (``KAFKA``), put in each request's header so that
            Metadata and FindCoordinator answer with this listener's addresses.
        features: the broker's feature flags at the moment of each ApiVersions answer (none when
            not given).
    """

    name = "kafka"

    def __init__(
        self, listener_name: str = "KAFKA", features: Callable[[], FeatureFlags] | None = None
    ) -> None:
        self.listener_name = listener_name
        self._features = features or (lambda: NO_FEATURES)

    def decode(self, payload: bytes | memoryview, client_address: str = "") -> Decoded:
        try:
            api_key, version = peek_api(payload)
        except KafkaHeaderError as exc:
            raise FrameError(str(exc)) from None
        api = KAFKA_APIS.get(api_key)
        if api is None:
            raise RequestDecodeError(
                f"api key {api_key} is not supported by the Kafka listener", Errors.UNSUPPORTED_VERSION, None
            )
        if not api.supports(version):
            if api_key == ApiKey.API_VERSIONS and len(payload) >= 8:
                correlation_id = I32.unpack_from(payload, 4)[0]
                reply = KafkaReply(correlation_id, api, 0, translate=False)
                return Decoded(reply, answer=api_versions_response(int(Errors.UNSUPPORTED_VERSION)))
            raise RequestDecodeError(
                f"{api.name} v{version} is not supported (supported {api.min_version}-{api.max_version})",
                Errors.UNSUPPORTED_VERSION,
                None,
            )
        flexible = api.flexible(version)
        reader = BinaryReader(
            bytes(payload), KafkaSchemaError, f"{api.name} v{version} request", replace_bad_utf8=True
        )
        try:
            header = decode_request_header(reader, request_header_version(flexible))
            # bytes after the body are ignored, as Kafka's request parser ignores them (librdkafka
            # sends three after a Metadata v12 request for every topic)
            request = api.request.decode(b"", version, flexible, reader)
        except (KafkaSchemaError, KafkaHeaderError) as exc:
            raise RequestDecodeError(
                f"invalid {api.name} v{version} request: {exc}", Errors.INVALID_REQUEST, None
            ) from None
        reply = KafkaReply(header.correlation_id, api, version, request)
        if api_key == ApiKey.API_VERSIONS:
            reply.translate = False
            if version >= 3 and not (
                _software_name_or_version_ok(request.client_software_name)
                and _software_name_or_version_ok(request.client_software_version)
            ):
                return Decoded(
                    reply, answer=ApiVersionsResponse(error_code=int(Errors.INVALID_REQUEST), api_keys=[])
                )
            return Decoded(reply, answer=api_versions_response(version=version, features=self._features()))
        refuse = REFUSALS.get(api_key)
        if refuse is not None and (refusal := refuse(request, version)) is not None:
            reply.translate = False
            return Decoded(reply, answer=refusal)
        translation = translation_of(api_key)
        try:
            internal = translation.to_internal(request, version)
        except UnparseableRequestError as exc:
            raise RequestDecodeError(
                f"invalid {api.name} v{version} request: {exc}", Errors.INVALID_REQUEST
            ) from None
        except (TypeError, ValueError, AttributeError) as exc:
            raise RequestDecodeError(
                f"invalid {api.name} v{version} request: {exc}", Errors.INVALID_REQUEST, reply
            ) from None
        spec = translation.spec
        # one declaration for both listeners: the broker sees the version the client asked for
        internal_version = version if spec.request is api.request else spec.max_version
        return Decoded(
            reply,
            RequestHeader(
                int(spec.key),
                internal_version,
                header.correlation_id,
                header.client_id,
                self.listener_name,
                client_address,
            ),
            spec,
            internal,
        )
