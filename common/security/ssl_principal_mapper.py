"""SslPrincipalMapper: the user name of a TLS client certificate's distinguished name, by Kafka's
``ssl.principal.mapping.rules`` (KIP-371).

Owns: parsing the rules with Kafka's grammar and messages (``DEFAULT``, or
``RULE:pattern/replacement/[LU]``, comma separated; "Invalid rule: ..." otherwise) and applying
them in order: the first rule whose pattern matches the whole DN gives the name (Java's
``replaceAll`` with ``$n`` back references; ``L`` / ``U`` lower or upper case), ``DEFAULT`` the DN
itself; none matching is ``NoMatchingRule`` ("No rules apply to <dn>, rules [...]").  Does not own
reading the certificate (``ssl_factory``) nor the principal type (``User:``).

Kafka concept: ``SslPrincipalMapper`` (``DefaultKafkaPrincipalBuilder`` for SSL).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DEFAULT_SSL_PRINCIPAL_MAPPING_RULES = "DEFAULT"

_RULE_PATTERN = r"(DEFAULT)|RULE:((\\.|[^\\/])*)/((\\.|[^\\/])*)/([LU]?).*?|(.*?)"
_RULE_SPLITTER = re.compile(r"\s*(" + _RULE_PATTERN + r")\s*(,\s*|$)")
_RULE_PARSER = re.compile(_RULE_PATTERN)
_BACK_REFERENCE = re.compile(r"\\(.)|\$(\d+)")


class NoMatchingRule(Exception):
    """No rule gives a name for the DN (Kafka's ``SslPrincipalMapper.NoMatchingRule``): the
    connection's authentication fails."""


@dataclass(frozen=True)
class _Rule:
    pattern: re.Pattern[str] | None = None  # None: DEFAULT
    replacement: str = ""
    to_lower: bool = False
    to_upper: bool = False

    def apply(self, dn: str) -> str | None:
        if self.pattern is None:
            return dn
        if self.pattern.fullmatch(dn) is None:
            return None
        groups = self.pattern.groups
        result = self.pattern.sub(lambda m: _expand(self.replacement, m, groups), dn)
        if self.to_lower:
            return result.lower()
        return result.upper() if self.to_upper else result

    def __str__(self) -> str:
        if self.pattern is None:
            return "DEFAULT"
        case = "/L" if self.to_lower else "/U" if self.to_upper else ""
        return f"RULE:{self.pattern.pattern}/{self.replacement}{case}"


def _expand(replacement: str, match: re.Match[str], groups: int) -> str:
    """Java's ``Matcher.appendReplacement`` of ``replacement`` (``$n`` a group, ``\\x`` the literal
    x), with Kafka's ``escapeLiteralBackReferences``: ``$n`` beyond the groups is cut to the longest
    prefix naming one, else kept literally."""

    def one(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            return m.group(1)
        digits = m.group(2)
        if groups == 0 or digits.startswith("0"):
            index = int(digits)
            return (match.group(index) or "") if index <= groups else m.group(0)
        index = int(digits)
        rest = ""
        while index > groups and index >= 10:
            rest = str(index % 10) + rest
            index //= 10
        if index > groups:
            return m.group(0)
        return (match.group(index) or "") + rest

    return _BACK_REFERENCE.sub(one, replacement)


class SslPrincipalMapper:
    """The mapping of ``ssl.principal.mapping.rules``.

    Args:
        rules: the config's value (None: ``DEFAULT``).

    Raises:
        ValueError: Kafka's "Invalid rule: ..." for a rule it cannot parse, or a pattern that is not
            a regular expression.
    """

    def __init__(self, rules: str | None) -> None:
        text = DEFAULT_SSL_PRINCIPAL_MAPPING_RULES if rules is None else rules
        self._rules: list[_Rule] = []
        for rule in (m.group(1) for m in _RULE_SPLITTER.finditer(text.strip())):
            self._parse(rule)  # an empty rule (a trailing comma) adds nothing, as in Kafka

    def _parse(self, rule: str) -> None:
        m = _RULE_PARSER.match(rule)
        if m is None:
            raise ValueError(f"Invalid rule: {rule}")
        if m.end() != len(rule):
            raise ValueError(f"Invalid rule: `{rule}`, unmatched substring: `{rule[m.end() :]}`")
        if m.group(1) is not None:
            self._rules.append(_Rule())
        elif m.group(2) is not None:
            try:
                pattern = re.compile(m.group(2))
            except re.error as exc:
                raise ValueError(f"Invalid rule: {rule}: {exc}") from None
            self._rules.append(_Rule(pattern, m.group(4), m.group(6) == "L", m.group(6) == "U"))

    def name(self, distinguished_name: str) -> str:
        """The user name of ``distinguished_name`` (RFC 2253 form: ``CN=alice,OU=eng,O=corp``).

        Raises:
            NoMatchingRule: no rule applies (Kafka's message).
        """
        for rule in self._rules:
            principal = rule.apply(distinguished_name)
            if principal is not None:
                return principal
        raise NoMatchingRule(
            f"No rules apply to {distinguished_name}, rules [{', '.join(map(str, self._rules))}]"
        )

    def __str__(self) -> str:
        return f"SslPrincipalMapper(rules = [{', '.join(map(str, self._rules))}])"
