"""Credentials written on command lines, for memory.store.redact: the patterns of its `cli_password` and
`url_credentials` rules. Each captures the password alone (group 1; CURL_USER and HTTPIE_AUTH: 1 the user,
2 the password), so the command around it is stored as written.
"""
from __future__ import annotations

# A command's words are on one line (or lines continued with a backslash), a few dozen at most: each pattern
# below reads at most that far from where it starts, so redaction stays linear on a long log that names a
# command on every line (an unbounded `\s+` / `(?:\S+\s+)*?` read on to the end of the text from each one:
# 400 lines of `docker login` took seconds)
_SP = r"(?:[ \t]|\\\r?\n)+"
_ARG = r"[^\s|;&<>]+"
_ARGS = r"(?:" + _SP + _ARG + r"){0,30}?"  # the words between the program and the flag


def _flag(program: str, flag: str) -> str:
    """PROGRAM, its words, then FLAG (a space before it)."""
    return program + _ARGS + _SP + flag


# Command lines that carry a password in a flag: mysql -pPW (attached), sshpass -p PW, redis-cli -a PW,
# docker/podman/helm login -p PW, mongosh -p PW.
CLI = (r"(?<![\w-])(?:(?:mysql\w*|mariadb\w*)(?:" + _SP + r"(?!-p)" + _ARG + r"){0,30}?" + _SP + r"-p(?![\s=])"
       r"|sshpass(?:" + _SP + r"-[a-oq-z]\S*){0,10}" + _SP + r"-p[ \t]*"
       r"|" + _flag("redis-cli", r"(?:-a|--pass)[ \t]+")
       + r"|(?:docker|podman|buildah|skopeo|helm|nerdctl)" + _SP + r"(?:\S+" + _SP + r"){0,4}?login"
       + _ARGS + _SP + r"-p(?:[ \t]+|(?![\s=]))"
       r"|" + _flag(r"mongo(?:sh|dump|restore|import|export)?", r"-p[ \t]+")
       # sqlcmd/bcp -P PW, ldapsearch -w PW, zip -P PW, 7z -pPW, az login / twine upload -p PW
       + r"|" + _flag(r"(?:sqlcmd|bcp|osql)", r"-P(?:[ \t]+|(?![\s=]))") + r"|" + _flag(r"ldap\w+", r"-w[ \t]+")
       + r"|" + _flag(r"(?:zip|unzip|zipcloak)", r"-P[ \t]+") + r"|" + _flag(r"7z[ar]?", r"-p(?![\s=])")
       + r"|" + _flag(r"(?:az[ \t]+login|twine[ \t]+upload)", r"-p[ \t]+")
       # rabbitmqctl add_user U PW, net user U PW, htpasswd -b[c] FILE U PW / -nb U PW, mc alias set N URL KEY PW,
       # poetry config http-basic.R U PW, lftp -u U,PW
       + r"|rabbitmqctl\s+(?:-\S+\s+){0,10}(?:add_user|change_password)\s+\S+\s+|\bnet\s+user\s+[^\s/]+\s+(?=[^\s/*])"
       r"|htpasswd(?:\s+-[A-Za-z]+){0,10}?\s+-(?=[A-Za-z]*b)(?:(?=[A-Za-z]*n)[A-Za-z]+\s+[^\s-]\S*"
       r"|(?![A-Za-z]*n)[A-Za-z]+\s+[^\s-]\S*\s+[^\s-]\S*)\s+"
       r"|\bmc\s+alias\s+set\s+\S+\s+\S+\s+\S+\s+|poetry\s+config\s+http-basic\.\S+\s+\S+\s+"
       r"|lftp\b[^\n|;&]{0,300}?\s-u\s+[^\s,]+,"
       # ssh-keygen -N PASSPHRASE, mosquitto_pub -P PW, net use \\s\share /user:U PW
       r"|" + _flag("ssh-keygen", r"-N[ \t]+") + r"|" + _flag(r"mosquitto_\w+", r"-P[ \t]+")
       + r"|\bnet\s+use\s+(?:[^\s|;&<>]+\s+){0,10}?/user:\S+\s+(?=[^\s/*]))"
       r"([\"'][^\"'\n]{1,200}[\"']|[^\s\"'`|;&<>(),]{1,200})")
CLI_TRIGGERS = ("mysql", "mariadb", "sshpass", "redis-cli", "login", "mongo", "sqlcmd", "bcp", "osql", "ldap", "zip",
                "7z", "twine", "rabbitmqctl", "net user", "htpasswd", "mc alias", "http-basic", "lftp", "ssh-keygen",
                "mosquitto_", "net use")
# sqlplus U/PW@DB (Oracle's tools), smbclient -U U%PW
SLASH_LOGIN = (r"\b(?:sqlplus|sqlldr|expdp|impdp|rman|dgmgrl)\b(?:\s+-\w+)*\s+[\"']?[\w$#.]+/"
               r"([^\s@/\"']{1,200})(?=[\"']?(?:@|\s|$))")
PERCENT_LOGIN = (r"\b(?:smbclient|rpcclient|smbcacls|smbget|smbmap)\b[^\n|;&]{0,300}?\s(?:-U\s*|--user(?:name)?=)[\"']?"
                 r"[^\s%\"']+%([^\s\"']{1,200})")
SLASH_TRIGGERS = ("sqlplus", "sqlldr", "expdp", "impdp", "rman", "dgmgrl")
PERCENT_TRIGGERS = ("smbclient", "rpcclient", "smbcacls", "smbget", "smbmap")
# A password typed into a program's stdin: `echo PW | sudo -S`, `| docker login --password-stdin`, `| chpasswd`,
# `sudo -S <<< 'PW'`
STDIN_READERS = (r"(?:--password-stdin|\bsudo\s(?:[^\n|;&<]{0,200}\s)?-[A-Za-z]*S|\bpasswd\b[^\n|;&<]{0,200}--stdin"
                 r"|\bchpasswd\b|\bkinit\b)")
STDIN_PASSWORD = (r"(?:\b(?:echo|printf)\s+(?:-[neE]+\s+)?((?:[\"'])[^\"'\n]{1,200}?[\"']|[^\s\"'|;&<>]{1,200})"
                  r"\s*\|\s*(?=[^\n|;&]*?" + STDIN_READERS + r")"
                  r"|" + STDIN_READERS + r"[^\n|;&<]{0,300}<<<\s*((?:[\"'])[^\"'\n]{1,200}[\"']|[^\s\"'|;&<>]{1,200}))")
# httpie / xh: `http -a USER:PW`, `--auth=USER:PW` (curl's -u is CURL_USER)
HTTPIE_AUTH = (r"\b(?:https?|xhs?)(?:\s[^\n]*?)?\s(?:-a|--auth)(?:[ =])[ \t]*[\"']?"
               r"([^\s:\"'@<>]*):([^\s\"'<>]{1,200})")
CURL_USER = (r"\bcurl\b[^\n]{0,2000}?(?:\\\r?\n[^\n]{0,2000}?){0,20}?(?:\s-u|\s--user)"
             r"(?:[ =]|\s*\\\r?\n\s*)[ \t]*[\"']?"
             r"([^\s:\"'@<>]*):([^\s\"'<>]{1,200})")
# requests' auth=("user", "PW"), HTTPBasicAuth("user", "PW"), HTTPDigestAuth(…)
AUTH_PAIR = (r"(?:\bauth\s*=\s*[(\[]|\bHTTP(?:Basic|Digest|Proxy)Auth\()\s*[\"'][^\"'\n]{0,200}[\"']\s*,\s*[\"']"
             r"([^\"'\n]{1,200})[\"']")
# A signed URL's signature: Azure SAS `sig=`, S3 `X-Amz-Signature=`, GCS `X-Goog-Signature=`, CloudFront `Signature=`
URL_SIGNATURE = r"(?i)[?&](?:sig|x-amz-signature|x-goog-signature|signature)=([A-Za-z0-9%/+=_.~-]{16,2000})"
# A token as a URL's user with no password (`https://TOKEN@github.com/…`)
URL_TOKEN_USER = r"(?<![A-Za-z0-9+.-])[a-zA-Z][a-zA-Z0-9+.-]*://([A-Za-z0-9_-]{20,300})@"
