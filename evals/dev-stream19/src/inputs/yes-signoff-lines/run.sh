#!/bin/sh
# thirty blank sign-off lines for the printed checklist
yes "[ ] Checked by: ____________  Date: ________" | head -n 30
