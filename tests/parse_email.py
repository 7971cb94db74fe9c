#!/usr/bin/env python3
"""Parses one email (RFC 5322 + MIME) with Python's own email package, an
implementation independent of chopar's, and writes what a mail client would
see as JSON: {"headers": {lower-case name: decoded value}, "parts":
{content type: decoded text}, "defects": [...]}.

Usage: parse_email.py MESSAGE_FILE OUTPUT_JSON_FILE
"""
import email
import email.policy
import json
import sys

with open(sys.argv[1], "rb") as f:
    message = email.message_from_bytes(f.read(), policy=email.policy.strict)
out = {"headers": {}, "parts": {}, "defects": [str(d) for d in message.defects]}
for name, value in message.items():
    out["headers"][name.lower()] = str(value)
for part in message.walk():
    out["defects"] += [str(d) for d in part.defects]
    if not part.is_multipart():
        # Line ends as a reader sees them: CRLF on the wire, LF on screen.
        out["parts"][part.get_content_type()] = part.get_content().replace("\r\n", "\n")
with open(sys.argv[2], "w", encoding="utf-8") as f:
    json.dump(out, f)
