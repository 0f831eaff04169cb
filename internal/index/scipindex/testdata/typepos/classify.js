// Prints, for every identifier of each file on ASCII lines, whether the
// TypeScript compiler's parser puts it where a type or a value is
// written: file, 0-based line, 0-based column, "type" or "value", by tabs.
// TS names the typescript package to load.
const ts = require(process.env.TS);
const fs = require('fs');
for (const f of process.argv.slice(2)) {
  const text = fs.readFileSync(f, 'utf8');
  const kind = f.endsWith('.tsx') ? ts.ScriptKind.TSX : f.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JSX;
  const sf = ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true, kind);
  const lines = text.split('\n');
  const visit = (n) => {
    if (ts.isIdentifier(n)) {
      let cls = '';
      if (ts.isPartOfTypeNode(n) || (n.parent && ts.isExpressionWithTypeArguments(n.parent) && n.parent.parent && ts.isHeritageClause(n.parent.parent) && (n.parent.parent.token === ts.SyntaxKind.ImplementsKeyword || ts.isInterfaceDeclaration(n.parent.parent.parent)))) cls = 'type';
      else if (ts.isExpressionNode(n) || (ts.isJsxOpeningLikeElement(n.parent) || ts.isJsxClosingElement(n.parent)) && n.parent.tagName === n) cls = 'value';
      if (cls) {
        const p = sf.getLineAndCharacterOfPosition(n.getStart(sf));
        const line = lines[p.line];
        if (/^[\x00-\x7f]*$/.test(line)) console.log(`${f}\t${p.line}\t${p.character}\t${cls}`);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
}
