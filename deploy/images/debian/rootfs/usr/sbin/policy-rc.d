#!/bin/sh
# Services never start while packages are installed in an image build.
exit 101
