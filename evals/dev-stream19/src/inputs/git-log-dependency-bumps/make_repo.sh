#!/bin/sh
# a throwaway repository whose history is a run of dependency bumps, with fixed authors and dates so the hashes are stable
set -e
rm -rf /tmp/bs19-repo && mkdir -p /tmp/bs19-repo && cd /tmp/bs19-repo
git init -q -b main
export GIT_AUTHOR_NAME="dependabot[bot]" GIT_AUTHOR_EMAIL="49699333+dependabot[bot]@users.noreply.github.com"
export GIT_COMMITTER_NAME="dependabot[bot]" GIT_COMMITTER_EMAIL="49699333+dependabot[bot]@users.noreply.github.com"
i=0
while read pkg from to; do
  i=$((i + 1))
  echo "$pkg@$to" >> deps.lock
  git add deps.lock
  GIT_AUTHOR_DATE="2027-01-01T09:00:00Z +$((i * 86400))" GIT_COMMITTER_DATE="2027-01-01T09:00:00Z +$((i * 86400))" \
    git -c commit.gpgsign=false commit -q -m "chore(deps): bump $pkg from $from to $to"
done < "$1"
