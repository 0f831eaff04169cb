#!/usr/bin/env bash
# Installs the language servers the LSP bridge's end-to-end tests run
# against, beyond gopls (which .ci/run installs): pyright and
# typescript-language-server (with typescript), and the SCIP indexers the
# TypeScript, JavaScript and Python frontend's tests run (scip-typescript,
# scip-python), pinned by e2e/lsp/package-lock.json. The tests find it in e2e/lsp/node_modules/.bin
# by themselves, so nothing needs to go on PATH. Takes well under a minute.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== pyright, typescript-language-server and the SCIP indexers for the end-to-end tests (pinned by e2e/lsp/package-lock.json)"
npm ci --prefix e2e/lsp --no-audit --no-fund --loglevel=error
e2e/lsp/node_modules/.bin/pyright --version
e2e/lsp/node_modules/.bin/typescript-language-server --version
e2e/lsp/node_modules/.bin/scip-typescript --version
e2e/lsp/node_modules/.bin/scip-python --version
