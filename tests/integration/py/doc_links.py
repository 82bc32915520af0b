"""The links of installed docs: every relative link in every .md under
DOCDIR (the installed share/doc/volley) names a file installed there, and
a link's #fragment a heading of the .md it names (GitHub's anchors:
lower case, punctuation dropped, blanks as '-'). Links in code blocks and
to other sites are not followed.

    doc_links.py DOCDIR

Prints one line per broken link (FILE: LINK: why), nothing when all hold."""
import os
import re
import sys


def slug(heading):
    return re.sub(r'[^\w\- ]', '', heading.strip().lower()).replace(' ', '-')


def anchors(path, cache={}):
    """The anchors of path's headings (a repeated one gets -1, -2...)."""
    if path not in cache:
        seen, out = {}, set()
        for line in open(path, encoding='utf-8'):
            m = re.match(r'#+ (.*)', line)
            if m:
                a = slug(m.group(1))
                n = seen.get(a, 0)
                seen[a] = n + 1
                out.add(a if n == 0 else '%s-%d' % (a, n))
        cache[path] = out
    return cache[path]


def main(root):
    for d, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            if not f.endswith('.md'):
                continue
            md = os.path.join(d, f)
            text = re.sub(r'```.*?```', '', open(md, encoding='utf-8').read(), flags=re.S)
            for m in re.finditer(r'\]\(([^)\s]+)\)', text):
                link = m.group(1)
                if re.match(r'[a-z]+:', link):
                    continue
                path, _, frag = link.partition('#')
                target = os.path.normpath(os.path.join(d, path)) if path else md
                where = '%s: %s' % (os.path.relpath(md, root), link)
                if not os.path.exists(target):
                    print('%s: not installed' % where)
                elif frag and target.endswith('.md') and frag not in anchors(target):
                    print('%s: no such heading' % where)


main(sys.argv[1])
