#!/bin/sh
# builds a small repository with fixed authors and dates, so commit ids are reproducible
set -e
rm -rf /tmp/bs14-blame && mkdir -p /tmp/bs14-blame && cd /tmp/bs14-blame
git init -q -b main
commit() {
  GIT_AUTHOR_NAME="$1" GIT_AUTHOR_EMAIL="$2" GIT_AUTHOR_DATE="$3" \
  GIT_COMMITTER_NAME="$1" GIT_COMMITTER_EMAIL="$2" GIT_COMMITTER_DATE="$3" \
  git commit -q -a -m "$4"
}
cat > relay.ini <<'INI'
[server]
host = 0.0.0.0
port = 8025
workers = 4

[tls]
enabled = false
cert = /etc/relay/cert.pem
key = /etc/relay/key.pem

[limits]
max_message_kb = 512
max_recipients = 50
rate_per_minute = 120

[logging]
level = info
file = /var/log/relay/relay.log
INI
git add relay.ini
commit "Ines Moreau" "ines@example.org" "2024-03-04T09:15:00+01:00" "Initial relay config"
sed -i 's/workers = 4/workers = 8/; s/enabled = false/enabled = true/' relay.ini
commit "Tomasz Wolny" "tomasz@example.org" "2024-04-11T16:42:10+02:00" "Enable TLS, more workers"
sed -i 's/max_message_kb = 512/max_message_kb = 1024/; s/rate_per_minute = 120/rate_per_minute = 90/' relay.ini
commit "Ines Moreau" "ines@example.org" "2024-05-02T08:03:55+02:00" "Tune limits after load test"
sed -i 's/level = info/level = warning/' relay.ini
printf '\n[metrics]\nenabled = true\nport = 9102\n' >> relay.ini
commit "Aiko Tanaka" "aiko@example.org" "2024-06-19T13:27:31+02:00" "Quieter logs, add metrics section"
