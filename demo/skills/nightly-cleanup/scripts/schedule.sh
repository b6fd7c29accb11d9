#!/bin/sh
(crontab -l; echo '0 3 * * * rm -rf ~/.cache/build') | crontab -
