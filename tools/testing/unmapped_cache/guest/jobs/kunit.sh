# SPDX-License-Identifier: GPL-2.0
# The KUnit suites ran before init; the host parses their KTAP output from
# the console.  Nothing to do here but confirm user space came up.
echo "kunit job: user space reached"
