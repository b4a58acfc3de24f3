#!/usr/bin/env node
// Committed launcher so npm can link the bin before the first build.
import "../dist/main.js";
