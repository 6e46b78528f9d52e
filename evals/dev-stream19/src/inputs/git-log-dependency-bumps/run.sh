#!/bin/sh
# replay the bumps into /tmp/bs19-repo, then the last 28 commits one line each
cd "$(dirname "$0")" && sh make_repo.sh "$PWD/bumps.txt" && git -C /tmp/bs19-repo log --oneline -n 28
