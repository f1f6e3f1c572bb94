"""The phrasings memory.store.screen looks for, as regular-expression sources (compiled there, on first need).

Each category is (reason, trigger, pattern): `trigger` is a cheap alternation of fragments every match of
`pattern` contains, searched first so clean text (nearly all of it) never runs the heavier patterns.
Both are matched case-insensitively against the text after NFKC and homoglyph folding (memory.store.screen).
Precision first: every pattern names the thing an injection needs (a previous *instruction*, a *shell* fed
by a download, a *secret* sent *somewhere*), not the words benign advice shares with it (curl, ignore, token).
"""
from __future__ import annotations

VERSION = 2  # bump on any change below: derived indexes cache the verdicts (memory.search.index fingerprint)

_NOUNS_EN = (r"(?:instructions?|directions|directives|rules|guidelines|prompts?|commands|orders|constraints|"
             r"restrictions|context|messages|guidance|polic(?:y|ies)|programming|training|system\s+prompt)")
_BEFORE_EN = (r"(?:previous|prior|above|earlier|preceding|foregoing|original|initial|system|your|the\s+user'?s?|"
              r"all\s+(?:the\s+|of\s+the\s+|your\s+)?(?:instructions|directions|directives|prompts|guidelines)|"
              r"any\s+(?:previous|prior|other|earlier))")

OVERRIDE = "instruction override"
ROLE = "role-play / identity change"
MARKER = "fake system or chat-role marker"
ADDRESSED = "addressed to the model, not about the code"
REMOTE = "fetches and runs remote code"
EXFIL = "sends secrets or files out"

CATEGORIES: tuple[tuple[str, str, str], ...] = (
    (OVERRIDE,
     r"ignor|disregard|forget|overrid|supersed|precedence|obey|new instructions|olvid|oubli|vergiss|esque|bypass|"
     r"skip|drop|discard|void|null|revoked|desconsider|seguire|sigas|siga|suis pas|suivez|"
     r"dimentic|игнор|забуд|忽略|无视|無視|忘|instruc|anweis|istruz|инструкц|指示|指令",
     r"\b(?:ignore|disregard|forget|override|skip|bypass|drop|discard)\s+(?:all\s+|any\s+|every\s+)?(?:of\s+)?"
     r"(?:the\s+|your\s+|these\s+|those\s+)?" + _BEFORE_EN + r"[\w\s,'-]{0,30}?" + _NOUNS_EN + r"\b"
     r"|\b(?:ignore|disregard|forget)\s+(?:everything|all)\s+(?:you\s+(?:were|have\s+been)\s+told|above|before|"
     r"(?:that\s+)?came\s+before|previously)"
     r"|\b(?:these|this|the\s+following)\s+(?:instructions?|rules?|notes?)\s+(?:override|supersede|take\s+precedence"
     r"\s+over|replace)\s+(?:all|any|every|the\s+(?:system|user)|your|previous|prior|other)"
     r"|\b(?:previous|prior|earlier|above|all\s+(?:prior|previous|other))\s+(?:instructions|rules|guidance|guidelines|"
     r"directions)\b[^.\n]{0,60}?\b(?:void|null|revoked|disregard|ignore)"
     r"|\bnew\s+(?:system\s+)?instructions\s*:|\bupdated\s+system\s+prompt\b|\byou\s+must\s+(?:now\s+)?obey\b"
     r"|\bobey\s+(?:only\s+)?(?:these|the\s+following|my|this\s+note)"
     # es / pt / it / fr
     r"|\b(?:ignora|ignore|ignorar|ignorez|ignorer|olvida|olvide|olvidar|esqueça|esqueca|esquece|dimentica|"
     r"oublie|oubliez|oublier|desconsidere|desconsidera|desconsiderar|non\s+seguire|no\s+sigas|no\s+sigan|"
     r"n[aã]o\s+siga|ne\s+suis\s+pas|ne\s+suivez\s+pas|ne\s+tiens\s+pas\s+compte\s+des)\s+(?:todas\s+|todos\s+|tutte\s+|toutes\s+|tous\s+)?(?:las\s+|los\s+|as\s+|os\s+|le\s+|"
     r"les\s+|tes\s+|vos\s+|sus\s+|tus\s+|suas\s+|tue\s+)?(?:\w+\s+)?(?:instrucciones|instruções|instrucoes|istruzioni|"
     r"instructions|indicaciones|regras|reglas|regole|règles|consignes|orientações|directivas)"
     # de
     r"|\b(?:ignoriere|ignorier|ignorieren\s+sie|vergiss|vergessen\s+sie|missachte)\s+(?:alle\s+|die\s+|deine\s+|"
     r"ihre\s+)?(?:\w+\s+)?(?:anweisungen|instruktionen|befehle|regeln|vorgaben|richtlinien)"
     # ru
     r"|(?:игнорируй|игнорируйте|проигнорируй|забудь|забудьте|не\s+обращай\s+внимания\s+на)\s+(?:все\s+)?"
     r"(?:\w+\s+)?(?:инструкци|указани|правила|команд)"
     # zh / ja
     r"|(?:忽略|无视|無視|忘记|忘記|不要理会|忽視)(?:掉)?(?:之前|以前|以上|此前|上面|上述|先前|前面|所有|全部|一切)[^。\n]{0,8}?"
     r"(?:指令|指示|说明|說明|提示|规则|規則|命令)"
     r"|(?:以前|前|上記|これまで|先)の(?:すべての|全ての)?(?:指示|命令|指令|ルール|プロンプト)[をは]?"
     r"(?:すべて|全て)?(?:無視|忘れ)"
     r"|(?:이전|위의|모든)\s*(?:지시|명령|지침)[을를]?\s*(?:모두\s*)?무시"),
    (ROLE,
     r"you are|you're|act as|pretend|roleplay|role-play|jailbr|dan |developer mode|from now on|henceforth|"
     r"eres|êtes|tu es|du bist|bist du|você|voce|sei |ты |你现在|從現在|从现在|あなたは|今から|これから|너는",
     r"\byou\s+are\s+now\b|\byou'?re\s+now\s+(?:a|an|in|the)\b|\byou\s+are\s+no\s+longer\b"
     r"|\b(?:from\s+now\s+on|henceforth|from\s+this\s+point(?:\s+on)?),?\s+(?:you|the\s+(?:assistant|ai|model|agent))"
     r"\s+(?:are|will|must|shall|should|have\s+to|act|respond|answer|obey|work)\b"
     r"|\byour\s+new\s+(?:role|identity|persona|instructions)\s+is\b"
     r"|\bpretend\s+(?:to\s+be|you\s+are|that\s+you)\b|\brole-?play\s+as\b"
     r"|\bact\s+as\s+(?:if\s+you\s+(?:were|are)\s+)?(?:an?\s+)?(?:unrestricted|unfiltered|uncensored|jailbroken|"
     r"evil|different\s+ai|dan\b)"
     r"|\bjailbr(?:eak|oken)\b|\bdeveloper\s+mode\s+(?:enabled|on)\b|\bdo\s+anything\s+now\b|\bDAN\s+mode\b"
     r"|\b(?:ahora|a\s+partir\s+de\s+ahora,?)\s+(?:tú\s+)?eres\b|\b(?:tu\s+es|vous\s+êtes)\s+maintenant\b"
     r"|\bà\s+partir\s+de\s+maintenant,?\s+(?:tu|vous)\b|\b(?:du\s+bist\s+(?:jetzt|nun|ab\s+sofort)|"
     r"ab\s+(?:jetzt|sofort)\s+bist\s+du)\b|\b(?:você|voce)\s+agora\s+é\b|\bagora\s+(?:você|voce)\s+é\b"
     r"|\ba\s+partir\s+de\s+agora,?\s+(?:você|voce)\b|\b(?:ora|adesso)\s+sei\s+(?:un|una|il|la)\b"
     r"|\bd'ora\s+in\s+poi,?\s+(?:sei|devi|tu)\b|(?:теперь|отныне)\s+ты\b|\bты\s+теперь\b"
     r"|(?:你现在是|你現在是|从现在开始你|從現在開始你|从现在起你|從現在起你)"
     r"|(?:あなたは今|今からあなたは|これからあなたは|あなたはこれから)|지금부터\s*너는"),
    (MARKER,
     r"system|inst]|<<sys|im_start|assistant:|human:|user:|<|系统|システム|систем",
     r"\[\s*/?\s*(?:system|sys|admin|developer|assistant)(?:\s+(?:message|prompt|note|override|instruction))?\s*\]"
     r"|</?\s*(?:system|system[-_](?:prompt|reminder)|sys|instructions?|admin)\s*>|<\|\s*(?:im_start|im_end|system|"
     r"endoftext|assistant|user)\s*\|>|\[/?INST\]|<<\s*/?SYS\s*>>"
     r"|(?:^|\n)\s*(?:#{1,6}\s*|\*\*|>\s*)?(?:system|system\s+prompt|system\s+message|assistant|human)\s*"
     r"(?:\*\*)?\s*:\s*(?=\S)"
     r"|\bbegin\s+(?:system|new)\s+(?:prompt|instructions)\b|\bend\s+of\s+(?:system\s+)?(?:prompt|instructions)\b"
     r"|【\s*(?:系统|システム|system)\s*】|\[\s*(?:系统|システム|система|sistema|système)\s*\]"),
    (ADDRESSED,
     r"\bai\b|\bllms?\b|language model|assistant|claude|gpt|copilot|gemini|\bcursor\b|codex|\buser|utilisateur|"
     r"usuario|usu[aá]rio|utente|benutzer|nutzer|anwender|пользовател|用户|用戶|使用者|ユーザー|\bia\b|\bki\b|\bии\b|"
     r"<!--|prompt|quietly|silently|secretly|\bdear\b|\bhey\b|\bbots?\b|\bagents?\s+(?:reading|processing|parsing|"
     r"seeing|that)|model|automated|asistente|assistente|from\s+the|给|への|модел|ассистент|нейросет|\b(?:safety|content)\s",
     r"\b(?:note|message|memo|reminder|instructions?|attention|warning|hint)s?\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+)?"
     r"(?:ai|llms?|language\s+models?|assistants?|chatbots?|ai\s+(?:agents?|assistants?|models?)|claude|chatgpt|gpt|"
     r"copilot|gemini|cursor|codex)\b"
     r"|\b(?:dear|hey|attention|hello)\s+(?:ai|llm|assistant|claude|chatgpt|gpt|copilot|gemini)\b"
     r"|\bif\s+you\s+are\s+an?\s+(?:ai|llm|language\s+model|ai\s+assistant|assistant|automated\s+agent|bot)\b"
     r"|\b(?:ai|llms?|language\s+models?|assistants?|agents?|bots?)\s+(?:reading|processing|parsing|seeing)"
     r"\s+this\b"
     r"|\b(?:do\s+not|don'?t|never|without)\s+(?:tell(?:ing)?|inform(?:ing)?|notify(?:ing)?|mention(?:ing)?|alert(?:ing)?|"
     r"reveal(?:ing)?|asking|warn(?:ing)?)\s+(?:this\s+|it\s+|anything\s+)?(?:to\s+)?(?:the\s+)?(?:user|human|operator)\b"
     r"|\b(?:hide|conceal|keep)\s+(?:this|it|that)\s+(?:hidden\s+)?from\s+the\s+(?:user|human|developer|operator)\b"
     r"|\b(?:the\s+)?user\s+(?:must|should)\s+(?:not|never)\s+(?:know|see|be\s+told|find\s+out|notice)\b"
     r"|\b(?:reveal|print|output|show|repeat|leak|dump)\s+(?:me\s+)?(?:your|the)\s+(?:full\s+|entire\s+|hidden\s+|"
     r"original\s+)?(?:system\s+prompt|initial\s+prompt|hidden\s+instructions|instructions\s+verbatim)\b"
     r"|\b(?:disable|bypass|turn\s+off|ignore|circumvent)\s+(?:all\s+|your\s+|the\s+)?(?:safety|content)\s+"
     r"(?:filters?|guidelines|guardrails|policies|policy|checks|rules|restrictions)\b"
     r"|\b(?:quietly|silently|secretly)\s+(?:add|insert|send|upload|post|include|run|execute|exfiltrate|copy)\b"
     r"|<!--(?:(?!-->).){0,400}?\b(?:ai|llm|assistant|model|agent|claude|gpt|copilot|instructions?|ignore|system|"
     r"prompt|execute|run)\b"
     r"|\bnota\s+(?:para|pour|per|für)\s+(?:la\s+|el\s+|a\s+|l'|o\s+)?(?:ia|ki|ai|asistente|assistente|assistant|modelo|"
     r"modèle|modello)\b|\b(?:hinweis|notiz|nachricht)\s+(?:an|für)\s+(?:die\s+|den\s+)?(?:ki|ai|assistenten|modell)\b"
     r"|(?:заметка|примечание|сообщение|записка)\s+для\s+(?:ии|ai|модели|ассистента|нейросети)"
     r"|给\s*(?:ai|AI|模型|助手|人工智能)\s*的\s*(?:提示|说明|指示|留言|备注)|(?:ai|AI|モデル|アシスタント)への(?:メモ|注意|指示|メッセージ)"
     r"|\b(?:no|nunca)\s+(?:le\s+)?(?:digas|menciones|cuentes|informes)\s+(?:nada\s+|esto\s+)?al\s+usuario"
     r"|\bsin\s+(?:decirle|decir|avisar|informar)(?:le)?\s+(?:nada\s+)?al\s+usuario"
     r"|\bsans\s+(?:le\s+)?(?:dire|prévenir|informer|avertir)\s+(?:à\s+)?l'utilisateur"
     r"|\bne\s+(?:le\s+)?dis\s+(?:rien\s+)?(?:pas\s+)?à\s+l'utilisateur"
     r"|\bohne\s+(?:es\s+)?(?:dem|den)\s+(?:benutzer|nutzer|anwender)\s+zu\s+(?:sagen|informieren|verraten)"
     r"|\bsag\w*\s+(?:dem|den)\s+(?:benutzer|nutzer|anwender)\s+nichts\b"
     r"|\bsem\s+(?:contar|dizer|avisar|informar)\s+(?:nada\s+)?ao\s+usu[aá]rio|\bn[aã]o\s+(?:conte|diga|avise|informe)"
     r"\s+(?:nada\s+)?ao\s+usu[aá]rio"
     r"|\bsenza\s+(?:dirlo|dire|avvisare|informare)\s+(?:nulla\s+)?(?:al(?:l')?\s*)?utente|\bnon\s+(?:dire|dirlo)\s+"
     r"(?:nulla\s+|niente\s+)?all'utente"
     r"|не\s+(?:говори|сообщай|рассказывай)\s+(?:ничего\s+|об\s+этом\s+)?пользователю|ничего\s+не\s+(?:говори|сообщай)"
     r"\s+пользователю"
     r"|(?:不要|别|別|不必)(?:告诉|告訴|通知|提醒)(?:用户|用戶|使用者)|ユーザーに(?:は)?(?:言わ|伝え|知らせ|教え)(?:ないで|るな)"),
)

# remote code: a download fed to an interpreter, decoded text fed to a shell, PowerShell's download-and-run
_SHELLS = r"(?:sudo\s+(?:-\S+\s+)*)?(?:ba|z|k|da|fi|c|tc)?sh\b|python[0-9.]*\b|perl\b|ruby\b|node\b|php\b|iex\b|" \
          r"pwsh\b|" \
          r"powershell\b|source\b|\.\s"
REMOTE_TRIGGER = r"curl|wget|iwr|irm|invoke-web|invoke-rest|downloadstring|base64|urllib|urlopen|requests\.|fetch|" \
                 r"http|frombase64|certutil|bitsadmin|xxd"
REMOTE_PATTERN = (
    r"\b(?:curl|wget|fetch|aria2c|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|\n;]*\|\s*" + f"(?:{_SHELLS})"
    r"|(?:\b(?:ba|z|k|da)?sh|\beval|\bsource|\bpython[0-9.]*|\bperl|\bruby|\bnode|(?:^|\s)\.)\s+(?:-c\s+)?['\"]?"
    r"(?:\$\(|`|<\()\s*(?:curl|wget|iwr|irm)\b"
    r"|\b(?:curl|wget)\b[^\n;|]*(?:-o|-O|--output)\s*\S+[^\n|]{0,80}?(?:&&|;)\s*(?:sudo\s+)?(?:chmod\s+\+x\s+\S+\s*"
    r"(?:&&|;)\s*)?(?:(?:ba|z)?sh|python[0-9.]*|\./)"
    r"|\bbase64\s+(?:-d|--decode|-D|-di)\b[^\n]*\|\s*" + f"(?:{_SHELLS})"
    r"|\b(?:echo|printf)\s+['\"]?[A-Za-z0-9+/=]{24,}['\"]?\s*\|\s*base64\b"
    r"|\b(?:iex|invoke-expression)\b\s*\(?\s*(?:\(?\s*)?(?:iwr|irm|invoke-webrequest|invoke-restmethod|new-object|"
    r"\[system\.text\.encoding\]|\[text\.encoding\]|\[convert\])"
    r"|\bdownloadstring\s*\(|\bfrombase64string\s*\([^)]*\)[^\n]{0,80}\b(?:iex|invoke-expression)\b"
    r"|\bexec\s*\(\s*(?:urllib|requests|__import__\(\s*['\"](?:urllib|requests))[^\n]{0,200}"
    r"|\b(?:urlopen|requests\.get|urllib\.request\.urlopen)\s*\([^\n]{0,200}?\)[^\n]{0,40}\bexec\b"
    r"|\bexec\s*\([^\n]{0,120}?(?:urlopen|requests\.get|\.read\(\))"
    r"|\beval\s+\"?\$\(\s*(?:curl|wget)\b"
    r"|\b(?:certutil)\b[^\n]*-urlcache[^\n]*&&"
)

# exfiltration, in commands: secrets or private files as the *payload* of a request (an Authorization header
# with $TOKEN is how APIs are called, and passes)
_SECRET_VAR = (r"\$\{?[A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)"
               r"[A-Z0-9_]*\}?")
_SECRET_FILE = (r"(?:~|\$HOME)?/?\.?(?:env\b|ssh/|aws/credentials|netrc|npmrc|pypirc|git-credentials|"
                r"docker/config\.json|"
                r"kube/config)|\bid_(?:rsa|ed25519|ecdsa)\b|/etc/(?:passwd|shadow)\b|\.pem\b")
_DUMP = r"\$\(\s*(?:env|printenv|cat\s+[^)]*(?:\.env|\.ssh|credentials|\.pem|id_rsa|\.netrc|passwd))"
EXFIL_COMMAND_TRIGGER = r"curl|wget|nc |ncat|netcat|iwr|invoke-web|requests\.post|fetch|http|gh |env|/dev/tcp|scp "
EXFIL_COMMAND_PATTERN = (
    r"\b(?:env|printenv)\b\s*(?:\|\s*(?:base64|gzip|xxd)[^|\n]*)?\|\s*(?:curl|wget|nc|ncat|netcat)\b"
    r"|\bcat\s+[^|\n;]*(?:" + _SECRET_FILE + r")[^|\n;]*\|\s*(?:base64[^|\n]*\|\s*)?(?:curl|wget|nc|ncat|netcat)\b"
    r"|\b(?:curl|wget)\b[^\n]*?(?:-d|--data(?:-\w+)?|-F|--form|-T|--upload-file|--post-data|--post-file|--body-data)"
    r"[=\s]+['\"]?[^\n]*?(?:@" + _SECRET_FILE + r"|" + _SECRET_VAR + r"|" + _DUMP + r")"
    r"|\b(?:curl|wget)\b[^\n]*?https?://\S*[?&=/]\S*(?:" + _SECRET_VAR + r"|" + _DUMP + r")"
    r"|\b(?:nc|ncat|netcat)\b[^\n]*<\s*(?:" + _SECRET_FILE + r")|>\s*/dev/tcp/"
    r"|\bgh\s+(?:pr|issue|gist|api)\b[^\n]*(?:" + _DUMP + r"|" + _SECRET_VAR
    + r"|--body-file\s+\S*\.env\b|gist\s+create\s+\S*"
    r"(?:\.env|id_rsa|credentials))"
    r"|\b(?:requests\.post|fetch|axios\.post|urllib\.request\.urlopen)\s*\([^\n]*(?:os\.environ|process\.env|"
    r"open\(\s*['\"][^'\"]*(?:\.env|\.ssh|id_rsa|credentials))"
    r"|\bscp\s+[^\n]*(?:\.ssh/|id_rsa|\.env\b|\.aws/credentials)[^\n]*\s\S+@\S+:"
)

# exfiltration, in words: an action, a secret and a destination, without a negation before the action
EXFIL_WORDS_TRIGGER = (r"\.env|printenv|environ|token|secret|credential|api key|api_key|password|private key|ssh key|"
                       r"environment var|"
                       r"env var|id_rsa|secreto|clave|contraseña|credencial|mot de passe|clé|jeton|passwort|geheim|"
                       r"schlüssel|zugangsdaten|senha|chave|segreto|chiave|токен|секрет|ключ|парол|"
                       r"переменные окружения|"
                       r"密钥|令牌|密码|環境変数|环境变量|トークン|シークレット|パスワード")
EXFIL_ACTION = (r"\b(?:paste|post|send|upload|include|print|copy|attach|leak|share|echo|write|dump|append|put|add|"
                r"forward|transmit|exfiltrate|publish|commit|pega|pegue|copia|copie|envía|envia|envie|incluye|inclua|"
                r"sube|colle|collez|envoie|envoyez|ajoute|ajoutez|inclus|incluez|füge|fügen|sende|senden|kopiere|"
                r"poste|cole|incolla|invia|includi|inserisci|aggiungi|publica|publique|pubblica)\b"
                r"|(?:вставь|вставьте|отправь|отправьте|скопируй|скопируйте|добавь|добавьте|опубликуй|выложи)"
                r"|(?:粘贴|贴到|发送|发到|上传|复制到|附上|写入|放到|貼り付け|送信|追加|載せ|アップロード|記載)")
EXFIL_SECRET = (r"(?:\.env\b|\bprintenv\b|\bos\.environ\b|\bprocess\.env\b|\btokens?\b|"
                r"\b\w+_(?:token|secret|key|password)s?\b|\bsecrets?\b|\bcredentials?\b|\bapi[\s_-]?keys?\b|\bpasswords?\b|"
                r"\bprivate[\s_-]keys?\b|\bssh[\s_-]keys?\b|\benvironment\s+variables\b|\benv\s+vars\b|\bid_rsa\b|"
                r"\bsecretos?\b|\bclaves?\b|\bcontraseñas?\b|\bcredenciales\b|\bmots?\s+de\s+passe\b|\bclés?\b|"
                r"\bjetons?\b|\bpassw[oö]rter?\b|\bgeheimnisse?\b|\bschlüssel\b|\bzugangsdaten\b|\bsenhas?\b|"
                r"\bchaves?\b|\bsegreti?\b|\bchiavi\b|\bchiave\b|токен|секрет|ключ|парол|переменные\s+окружения|"
                r"密钥|令牌|密码|環境変数|环境变量|トークン|シークレット|パスワード|秘密鍵)")
EXFIL_PLACE = (r"(?:\bpr\b|\bprs\b|pull\s+requests?|\bissues?\b|\bcomments?\b|\bdescriptions?\b|commit\s+messages?|"
               r"https?://|\bwebhooks?\b|\bpastebin\b|\bgists?\b|\bdiscord\b|\btelegram\b|\bendpoint\b|\bserver\b|"
               r"\burl\b|\bchangelog\b|\breadme\b|\bdescripción\b|\bdescrição\b|\bdescrizione\b|\bbeschreibung\b|"
               r"\bcommentaire\b|\bcomentario\b|\bcomentário\b|\bcommento\b|\bkommentar\b|описани|комментари|"
               r"描述|评论|説明|コメント|プルリクエスト|拉取请求|合并请求|イシュー)")
NEGATION = (r"(?:\bnever\b|\bdon'?t\b|\bdo\s+not\b|\bdoes\s+not\b|\bmust\s+not\b|\bmustn'?t\b|\bshould\s+not\b|"
            r"\bshouldn'?t\b|\bcannot\b|\bcan'?t\b|\bavoid\b|\bnot\b|\bno\b|\bwithout\b|\bprevent\b|\bforbid|"
            r"\bnunca\b|\bjamais\b|\bne\b|\bpas\b|\bnie\b|\bniemals\b|\bnicht\b|\bkeine?\b|\bnão\b|\bnao\b|\bmai\b|"
            r"\bnon\b|\bnada\b|никогда|\bне\b|不要|别|別|禁止|切勿|不得|決して|しない|ないで|禁止)")

# Per category, the words (lowercase, ASCII) without one of which its pattern cannot match ASCII text: screen
# reads an ASCII text's words once and runs only the patterns whose words it holds (tests/store/test_screen.py holds
# every verdict over the corpus to what the patterns alone give). Words ending in SECRET_SUFFIXES (GITHUB_TOKEN)
# count as secrets; "<!--" and "<|" in the text wake the marker and addressed-to-the-model patterns.
_OVERRIDE_WORDS = """
ignore ignores ignored ignoring disregard disregards disregarded disregarding forget forgets forgetting forgot
override overrides overriding overridden supersede supersedes precedence obey skip bypass drop discard replace
everything instructions updated void null revoked desconsidere desconsidera desconsiderar seguire sigas sigan siga
suis suivez tiens ignora ignorar ignorez ignorer olvida olvide olvidar esqueca esquece dimentica oublie oubliez
oublier ignoriere ignorier ignorieren vergiss vergessen missachte"""
_ROLE_WORDS = """
now longer henceforth point pretend roleplay role play act jailbreak jailbroken dan anything persona identity
instructions developer ahora eres maintenant bist jetzt sofort agora voce ora adesso sei poi partir"""
_MARKER_WORDS = """
system sys admin developer assistant human inst im_start im_end endoftext user begin prompt instruction
instructions"""
_ADDRESSED_WORDS = """
ai llm llms language chatbot chatbots claude chatgpt gpt copilot gemini cursor codex assistant assistants
automated bot bots reading processing parsing seeing user human operator developer prompt instructions
disable bypass turn ignore circumvent quietly silently secretly dear hey hello attention nota hinweis notiz
nachricht usuario utilisateur utente benutzer nutzer anwender"""
_REMOTE_WORDS = """
curl wget fetch aria2c iwr irm invoke base64 iex downloadstring frombase64string exec urlopen eval certutil urllib
requests"""
_EXFIL_COMMAND_WORDS = "env printenv curl wget nc ncat netcat tcp gh requests fetch axios urllib scp"
_SECRET_WORDS = """
env printenv environ token tokens secret secrets credential credentials key keys password passwords private ssh
environment vars id_rsa id_ed25519 secreto secretos clave claves credenciales passe jeton jetons passwort passworter
geheimnis geheimnisse zugangsdaten senha senhas chave chaves segreto segreti chiave chiavi"""
CATEGORY_WORDS = {OVERRIDE: frozenset(_OVERRIDE_WORDS.split()), ROLE: frozenset(_ROLE_WORDS.split()),
                  MARKER: frozenset(_MARKER_WORDS.split()), ADDRESSED: frozenset(_ADDRESSED_WORDS.split())}
REMOTE_WORDS = frozenset(_REMOTE_WORDS.split())
EXFIL_COMMAND_WORDS = frozenset(_EXFIL_COMMAND_WORDS.split())
SECRET_WORDS = frozenset(_SECRET_WORDS.split())
# exfiltration in words needs an action and a destination too (EXFIL_ACTION, EXFIL_PLACE)
_PLACE_WORDS = """
pr prs pull issue issues comment comments description descriptions commit http https webhook webhooks pastebin
gist gists discord telegram endpoint server url changelog readme beschreibung commentaire comentario commento
kommentar"""
_ACTION_WORDS = """
paste post send upload include print copy attach leak share echo write dump append put add forward transmit
exfiltrate publish commit pega pegue copia copie envia envie incluye inclua sube colle collez envoie envoyez ajoute
ajoutez inclus incluez sende senden kopiere poste cole incolla invia includi inserisci aggiungi publica publique
pubblica"""
PLACE_WORDS = frozenset(_PLACE_WORDS.split())
ACTION_WORDS = frozenset(_ACTION_WORDS.split())
SECRET_SUFFIXES = ("_token", "_tokens", "_secret", "_key", "_keys", "_password", "_passwd", "_credentials")
SUSPECT_WORDS = frozenset().union(*CATEGORY_WORDS.values(), REMOTE_WORDS, EXFIL_COMMAND_WORDS, SECRET_WORDS)
