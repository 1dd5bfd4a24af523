"""JAAS configuration text parsed as Kafka's JaasConfig parses sasl.jaas.config values: entries,
control flags, quoted and bare values, comments, and Kafka's error messages."""

from __future__ import annotations

import pytest

from kafkette.common.security.jaas_config import LoginModuleEntry, parse_jaas_config

PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"


def test_a_plain_login_module_with_users():
    [entry] = parse_jaas_config(
        f'{PLAIN} required username="admin" password="admin-secret" user_admin="admin-secret" '
        'user_alice="alice secret";'
    )
    assert entry == LoginModuleEntry(
        PLAIN,
        "REQUIRED",
        {
            "username": "admin",
            "password": "admin-secret",
            "user_admin": "admin-secret",
            "user_alice": "alice secret",
        },
    )


def test_flags_values_quotes_escapes_and_comments():
    entries = parse_jaas_config(
        "test.LoginModuleA optional key-1=value_$1 /* a comment */ key2='single \\'q\\''; // end\n"
        'test.LoginModuleB Sufficient k="a\\\\b\\n";'
    )
    assert entries == [
        LoginModuleEntry("test.LoginModuleA", "OPTIONAL", {"key-1": "value_$1", "key2": "single 'q'"}),
        LoginModuleEntry("test.LoginModuleB", "SUFFICIENT", {"k": "a\\b\n"}),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Login module not specified in JAAS config"),
        (f"{PLAIN}", "Login module control flag not specified in JAAS config"),
        (f"{PLAIN} mandatory;", "Invalid login module control flag 'mandatory' in JAAS config"),
        (f'{PLAIN} required username="a"', "JAAS config entry not terminated by semi-colon"),
        (f"{PLAIN} required username=;", "Value not specified for key 'username' in JAAS config"),
        (f"{PLAIN} required iterations=4096;", "Value not specified for key 'iterations' in JAAS config"),
        (f"{PLAIN} required username;", "Value not specified for key 'username' in JAAS config"),
    ],
)
def test_malformed_text_is_refused_with_kafkas_message(text, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        parse_jaas_config(text)
