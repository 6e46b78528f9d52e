#!/bin/sh
# OpenSSL's verbose cipher-suite list for the ECDHE suites (OpenSSL lists its TLS 1.3 suites too)
cd "$(dirname "$0")" && openssl ciphers -v 'ECDHE' 2>&1
