#!/usr/bin/env node
'use strict';
require('./run.js')('reflect-mcp');
