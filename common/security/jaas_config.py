"""JAAS configuration text as Kafka reads it from ``sasl.jaas.config`` (and its
``listener.name.<listener>.<mechanism>.sasl.jaas.config`` form).

Owns: parsing ``<LoginModule class> <control flag> key="value" ... ;`` entries into
``LoginModuleEntry`` values, with Kafka's tokenizing rules (Java's ``StreamTokenizer`` as
``JaasConfig`` sets it up: ``//`` and ``/* */`` comments, single- or double-quoted values with
backslash escapes, bare words of letters, digits, ``.``, ``-``, ``_`` and ``$``; a bare number is
not a value) and Kafka's error messages.  Does not own what the options mean (the SASL servers'
``user_<name>`` entries, the client's ``username`` / ``password``).

Kafka concept: ``org.apache.kafka.common.security.JaasConfig`` / ``JaasContext``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CONTROL_FLAGS = ("REQUIRED", "REQUISITE", "SUFFICIENT", "OPTIONAL")

_WORD_START = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_$")
_WORD_PART = _WORD_START | set("0123456789.")
_NUMBER_START = set("0123456789.")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "a": "\a", "v": "\v"}


@dataclass(frozen=True)
class LoginModuleEntry:
    """One entry: the login module's class name, its control flag (upper case) and its options."""

    login_module: str
    control_flag: str
    options: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Token:
    kind: str  # "word", "quoted", "number", or the character itself ("=", ";", ...)
    text: str | None


def _tokens(text: str) -> list[_Token]:
    out: list[_Token] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end + 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif c in "\"'":
            value, i = _quoted(text, i + 1, c)
            out.append(_Token("quoted", value))
        elif c in _WORD_START or ord(c) >= 160:
            start = i
            while i < n and (text[i] in _WORD_PART or ord(text[i]) >= 160):
                i += 1
            out.append(_Token("word", text[start:i]))
        elif c in _NUMBER_START:
            while i < n and text[i] in _NUMBER_START:
                i += 1
            out.append(_Token("number", None))
        else:
            out.append(_Token(c, None))
            i += 1
    return out


def _quoted(text: str, i: int, quote: str) -> tuple[str, int]:
    """A quoted value from just after its opening quote: (value, index after the closing quote);
    an unterminated value ends at the end of the line, as StreamTokenizer's does."""
    chars = []
    n = len(text)
    while i < n and text[i] != quote and text[i] != "\n":
        if text[i] == "\\" and i + 1 < n:
            nxt = text[i + 1]
            chars.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        chars.append(text[i])
        i += 1
    return "".join(chars), i + 1


def parse_jaas_config(text: str) -> list[LoginModuleEntry]:
    """The login module entries of a JAAS configuration text.

    Args:
        text: e.g. ``org.apache.kafka.common.security.plain.PlainLoginModule required
            username="admin" password="admin-secret" user_admin="admin-secret";``.

    Returns:
        The entries in order (at least one).

    Raises:
        ValueError: Kafka's messages: "Login module not specified in JAAS config", "Login module
            control flag not specified in JAAS config", "Invalid login module control flag 'X' in
            JAAS config", "Value not specified for key 'K' in JAAS config", "JAAS config entry not
            terminated by semi-colon".
    """
    tokens = _tokens(text)
    entries = []
    i = 0
    while i < len(tokens):
        login_module = tokens[i].text
        i += 1
        if i >= len(tokens):
            raise ValueError("Login module control flag not specified in JAAS config")
        flag = tokens[i].text
        if flag is None:
            raise ValueError("Login module control flag is not available in the JAAS config")
        if flag.upper() not in CONTROL_FLAGS:
            raise ValueError(f"Invalid login module control flag '{flag}' in JAAS config")
        i += 1
        options: dict[str, str] = {}
        while i < len(tokens) and tokens[i].kind != ";":
            key = tokens[i].text
            if (
                i + 2 >= len(tokens)
                or tokens[i + 1].kind != "="
                or tokens[i + 2].kind not in ("word", "quoted")
            ):
                raise ValueError(f"Value not specified for key '{key}' in JAAS config")
            value = tokens[i + 2].text
            assert value is not None
            options[str(key)] = value
            i += 3
        if i >= len(tokens):
            raise ValueError("JAAS config entry not terminated by semi-colon")
        i += 1  # the ';'
        entries.append(LoginModuleEntry(str(login_module), flag.upper(), options))
    if not entries:
        raise ValueError("Login module not specified in JAAS config")
    return entries
