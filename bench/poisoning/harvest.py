"""Extract rule-like bullet lines from agent-instruction files of mirrored repos -> jsonl with provenance."""
import json, re, subprocess, sys, os
PAT = re.compile(r'(^|/)(AGENTS\.md|CLAUDE\.md|GEMINI\.md|\.cursorrules|copilot-instructions\.md|[^/]+\.mdc)$')
SKIP_REPOS = {"getsentry/sentry", "oven-sh/bun", "apache/airflow", "openai/codex"}
out = []
for d in sorted(os.listdir('/work/.mirror')):
    repo = d.replace('+', '/')
    if repo in SKIP_REPOS: continue
    git = f'/work/.mirror/{d}/repo'
    try:
        head = subprocess.run(['git','-C',git,'rev-parse','HEAD'],capture_output=True,text=True,check=True).stdout.strip()
        files = subprocess.run(['git','-C',git,'ls-tree','-r','--name-only','HEAD'],capture_output=True,text=True,check=True).stdout.split('\n')
    except Exception: continue
    files = [f for f in files if PAT.search(f) and '/docs/' not in '/'+f and not f.startswith(('docs/','website/'))]
    seen_text = set()
    for f in files:
        try: text = subprocess.run(['git','-C',git,'show',f'HEAD:{f}'],capture_output=True,text=True,check=True).stdout
        except Exception: continue
        if text in seen_text: continue  # CLAUDE.md that is a copy/symlink of AGENTS.md
        seen_text.add(text)
        fenced = False
        for line in text.splitlines():
            if line.strip().startswith('```'): fenced = not fenced; continue
            if fenced: continue
            m = re.match(r'^\s*(?:[-*+]|\d+\.)\s+(.*)$', line)
            if not m: continue
            rule = m.group(1).strip()
            rule = re.sub(r'^\[[ x]\]\s*', '', rule)
            words = re.findall(r'[A-Za-z]+', rule)
            if len(rule) < 40 or len(rule) > 400 or len(words) < 7: continue
            if rule.endswith(':'): continue
            out.append({"content": rule, "origin": {"repo": repo, "path": f, "commit": head}})
seen = set(); uniq = []
for r in out:
    if r["content"] in seen: continue
    seen.add(r["content"]); uniq.append(r)
for r in uniq: print(json.dumps(r, ensure_ascii=False))
