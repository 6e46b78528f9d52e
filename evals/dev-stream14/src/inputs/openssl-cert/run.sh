#!/bin/sh
# a fresh self-signed RSA-2048 certificate, then its text dump (key and serial differ on every run)
cd "$(dirname "$0")" && openssl req -x509 -newkey rsa:2048 -nodes -keyout /tmp/bs14-key.pem -out /tmp/bs14-cert.pem -days 365 -subj "/C=NO/O=Fjordlab/CN=build.fjordlab.test" 2>/dev/null && openssl x509 -in /tmp/bs14-cert.pem -noout -text
