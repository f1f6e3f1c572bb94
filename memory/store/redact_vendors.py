"""Vendor token formats that identify themselves by their prefix: redacted by shape alone, no key name needed.

One table, one compiled alternation (each format one capture group, so `match.lastindex` names the
format), run only when one of the lowercase triggers occurs in the text. The shapes are public facts
about each vendor's tokens (their documentation, and the detector definitions of TruffleHog and
detect-secrets); the patterns are written here. A body must also look random (memory.store.redact checks
it), so placeholders such as `xoxb-my-bot-token` or `ghp_<your token>` stay.
"""
from __future__ import annotations

_B = r"[A-Za-z0-9_-]"   # base64url body
_A = r"[A-Za-z0-9]"     # alphanumeric body
_H = r"[a-fA-F0-9]"     # hex body
_UUID = r"[A-Za-z0-9]{8}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{12}"

# (type, pattern of the whole token without capture groups, lowercase triggers)
VENDORS: list[tuple[str, str, tuple[str, ...]]] = [
    ("slack_token", r"xox[abeoprs]-\d{6,}-[A-Za-z0-9-]{8,}|xoxe\.xox[bp]-\d-[A-Za-z0-9]{100,}|xoxe-\d-[A-Za-z0-9]{100,}"
                    r"|xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]{8,}", ("xox", "xapp-")),
    ("github_token", r"(?:ghp|gho|ghs|ghr|ghu)_" + _B + r"{30,255}|github_pat_\w{40,255}",
     ("ghp_", "gho_", "ghs_", "ghr_", "ghu_", "github_pat_")),
    ("huggingface_token", r"hf_[A-Za-z0-9]{30,40}|api_org_[A-Za-z]{30,40}", ("hf_", "api_org_")),
    ("rubygems_token", r"rubygems_" + _A + r"{40,64}", ("rubygems_",)),
    ("sendgrid_key", r"SG\.[\w=.-]{40,80}", ("sg.",)),
    ("sendinblue_key", r"xkeysib-[\w-]{60,100}|xsmtpsib-[\w-]{60,100}", ("xkeysib-", "xsmtpsib-")),
    ("pulumi_token", r"pul-[a-z0-9]{40}", ("pul-",)),
    ("postman_key", r"PMAK-[\w-]{50,70}", ("pmak-",)),
    ("newrelic_key", r"NR(?:AK|II|IQ|BR|JS)-[\w-]{15,40}", ("nrak-", "nrii-", "nriq-", "nrbr-", "nrjs-")),
    ("grafana_token", r"glsa_\w{32,48}", ("glsa_",)),
    ("atlassian_token", r"AT(?:ATT|CTT)[\w=-]{20,}", ("atatt", "atctt")),
    ("sourcegraph_token", r"sgp_(?:" + _H + r"{16}|local)_" + _H + r"{40}|sgp_" + _H + r"{40}|slk_" + _H + r"{64}",
     ("sgp_", "slk_")),
    ("alibaba_key", r"LTAI" + _A + r"{12,30}", ("ltai",)),
    ("facebook_token", r"EAA[A-Z][A-Za-z0-9]{30,}|EAACEdEose0cBA[A-Za-z0-9]{20,}", ("eaa",)),
    ("onepassword_key", r"A3-[A-Z0-9]{6}-[A-Z0-9]{5,11}(?:-[A-Z0-9]{5,6}){3,4}", ("a3-",)),
    ("airtable_token", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}", ("pat",)),
    ("mapbox_token", r"[ps]k\.eyJ[\w-]{20,}\.[\w-]{20,}", ("pk.eyj", "sk.eyj")),
    ("mapbox_token", r"[ps]k\.[a-zA-Z0-9._-]{30,}", ("pk.", "sk.")),
    ("vault_token", r"hv[sb]\.[\w-]{24,300}", ("hvs.", "hvb.")),
    ("vault_token", r"s\.[A-Za-z0-9]{24}", ("vault",)),  # the legacy format: only where Vault is named
    ("jwt", r"eyJ[\w-]{8,}\.ey[\w-]{8,}\.[\w-]{8,}|eyJ(?:hbGciOi|0eXAiOi)[\w-]{10,}\.[\w.-]{20,}", ("eyj",)),
    ("cloudflare_key", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{100,}|v1\.0-[\w-]{120,}|cfk_[A-Za-z0-9]{40}" + _H + r"{8}"
                       r"|cf[a-z]t_[A-Za-z0-9]{40}" + _H + r"{8}", ("v1.0-", "cfk_", "cfut_", "cfat_")),
    ("slack_webhook", r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,}",
     ("hooks.slack.com",)),
    ("webhook_url", r"(?:https?://)?hooks\.zapier\.com/hooks/catch/[\w+/-]{8,}"
                    r"|https?://[\w-]+\.tines\.com/webhook/[\w/-]{20,}", ("hooks.zapier.com", ".tines.com/")),
    ("vendor_token", r"fio-u-" + _B + r"{40,}", ("fio-u-",)),
    ("vendor_token", r"fig[pdou]_" + _B + r"{30,}", ("fig",)),
    ("vendor_token", r"ramp_(?:id|sec)_" + _A + r"{30,}", ("ramp_",)),
    ("vendor_token", r"cmVmdGtu" + _A + r"{40,}", ("cmvmdgtu",)),
    ("vendor_token", r"nvapi-" + _B + r"{40,}", ("nvapi-",)),
    ("vendor_token", r"bkua_[a-z0-9]{40}", ("bkua_",)),
    ("vendor_token", r"shltm_" + _B + r"{30,}", ("shltm_",)),
    ("vendor_token", r"sq(?:co|u|p|a)_" + _A + r"{30,}", ("sqco_", "squ_", "sqp_", "sqa_")),
    ("vendor_token", r"tskey-[a-z]+-" + _B + r"{10,}", ("tskey-",)),
    ("vendor_token", r"rh-api-" + _UUID, ("rh-api-",)),
    ("vendor_token", r"CFPAT-" + _B + r"{30,}", ("cfpat-",)),
    ("vendor_token", r"xai-" + _B + r"{40,}", ("xai-",)),
    ("vendor_token", r"pcsk_" + _A + r"{3,8}_" + _A + r"{40,}", ("pcsk_",)),
    ("vendor_token", r"sbp_[a-z0-9]{40}", ("sbp_",)),
    ("vendor_token", r"pi_" + _A + r"{10,}_secret_" + _A + r"{10,}", ("pi_",)),
    ("vendor_token", r"flb_live_" + _A + r"{16,}", ("flb_live_",)),
    ("vendor_token", r"thog-(?:key|secret)-" + _H + r"{16,}", ("thog-",)),
    ("vendor_token", r"BBFF-" + _A + r"{25,}", ("bbff-",)),
    ("vendor_token", r"secret_" + _A + r"{40,45}", ("secret_",)),
    ("vendor_token", r"VF\.(?:DM\.)?" + _H + r"{24}\." + _A + r"{16}", ("vf.",)),
    ("vendor_token", r"bb_(?:pr|ma)_" + _H + r"{30}", ("bb_",)),
    ("vendor_token", r"BBDC-" + _A + r"{30,}", ("bbdc-",)),
    ("vendor_token", r"3MVG9" + r"[\w.]{60,}", ("3mvg9",)),
    ("vendor_token", r"5AEP861" + _A + r"{60,}", ("5aep861",)),
    ("vendor_token", r"r8_" + _B + r"{30,}", ("r8_",)),
    ("vendor_token", r"aio_" + _A + r"{28}", ("aio_",)),
    ("vendor_token", r"apify_api_" + _B + r"{30,}", ("apify_api_",)),
    ("vendor_token", r"gsk_" + _A + r"{40,}", ("gsk_",)),
    ("vendor_token", r"lsv2_(?:pt|sk)_" + _H + r"{32}_" + _H + r"{10}", ("lsv2_",)),
    ("vendor_token", r"pat-(?:na|eu)\d-" + _UUID, ("pat-",)),
    ("vendor_token", r"FLW(?:SECK|PUBK)(?:_TEST)?-?" + _A + r"{12,}(?:-X)?", ("flwseck", "flwpubk")),
    ("vendor_token", r"dckr_pat_" + _B + r"{20,}", ("dckr_pat_",)),
    ("vendor_token", r"api-" + _UUID, ("api-",)),
    ("vendor_token", r"(?:pub)?key-[a-z0-9]{32}", ("key-",)),
    ("vendor_token", r"4b1d" + _A + r"{38}", ("4b1d",)),  # ClickHouse Cloud
    ("vendor_token", r"bedrock-api-key-[\w+/=]{40,}", ("bedrock-api-key-",)),
    ("vendor_token", _A + r"{6}_" + _A + r"{29}_mmk", ("_mmk",)),  # MaxMind
    ("vendor_token", r"[a-z0-9]{11}AAAAAAAAAA[\w=-]{43}", ("aaaaaaaaaa",)),  # Dropbox long-lived
    ("vendor_token", r"api_[\w.-]{40,50}", ("api_",)),
    ("vendor_token", r"ak_(?:live|test)_" + _A + r"{20,}", ("ak_",)),
    ("vendor_token", r"(?:sub|pub)-c-" + _UUID, ("sub-c-", "pub-c-")),
    ("vendor_token", r"CCIPAT_" + _A + r"{20,}_" + _H + r"{40}", ("ccipat_",)),
    ("vendor_token", r"rootly_" + _H + r"{64}", ("rootly_",)),
    ("vendor_token", r"[su]-s4t2ud-" + _H + r"{64}", ("-s4t2ud-",)),
    ("vendor_token", r"ph[xc]_" + _B + r"{40,}", ("phx_", "phc_")),
    ("vendor_token", r"NF-" + _A + r"{32}", ("nf-",)),
    ("vendor_token", r"sk_" + _A + r"{32,}", ("sk_",)),
    ("vendor_token", r"sk_pr_" + _A + r"+_" + _H + r"{40}", ("sk_pr_",)),
    ("vendor_token", r"(?:live|test)_" + _H + r"{35}", ("live_", "test_")),
    ("vendor_token", r"live_[\w=-]{40}", ("live_",)),
    ("jwt", r"ZXlK[A-Za-z0-9+/]{60,}={0,2}", ("zxlk",)),  # a JWT, base64-wrapped once more
    ("grafana_token", r"eyJrIjoi[A-Za-z0-9+/=]{50,400}", ("eyjrijoi",)),
    ("vendor_token", r"ico-" + _A + r"{32}", ("ico-",)),
    ("vendor_token", r"tk-us-[\w-]{40,}", ("tk-us-",)),
    ("vendor_token", r"sm_(?:pat|aat|sat)_" + _A + r"{16}", ("sm_",)),
    ("vendor_token", r"(?:sc|ext|scauth|authress)_[a-z0-9]{5,30}\.[a-z0-9]{4,6}\.acc[_-][a-z0-9-]{10,32}\."
                     r"[\w+/=-]{30,120}", (".acc_", ".acc-")),
    ("vendor_token", r"dnkey-[\w=-]{26}-[\w=-]{52}", ("dnkey-",)),
    ("vendor_token", r"p8e-[A-Za-z0-9]{32}", ("p8e-",)),
    ("vendor_token", r"[0-9a-f]{32}-us\d{1,2}", ("-us",)),  # Mailchimp
    ("vendor_token", r"t1\.[\w-]+={0,2}\.[\w-]{86}={0,2}|AQVN[\w-]{35,38}", ("t1.", "aqvn")),
    ("vendor_token", r"(?:pat|sat)\.[\w-]{22}\." + _A + r"{24}\." + _A + r"{20}", ("pat.", "sat.")),
    ("vendor_token", r"API-[A-Z0-9]{26}", ("api-",)),  # Octopus Deploy
    ("google_oauth_token", r"ya29\.[\w-]{30,}", ("ya29.",)),  # `gcloud auth print-access-token`
    ("vendor_token", r"A{20,}[A-Za-z0-9%]{30,}", ("aaaaaaaaaaaaaaaaaaaa",)),  # Twitter bearer
    ("facebook_token", r"\d{15,16}(?:\||%7C|%)[\w-]{27,40}", ("facebook", "%7c", "access_token")),  # app id|app secret
    ("vendor_token", r"pk_" + _H + r"{34}", ("pk_",)),
    ("vendor_token", r"web_[a-z0-9]{32}", ("web_",)),
    ("vendor_token", r"endr\+" + _A + r"{16}", ("endr+",)),
    ("vendor_token", r"tfp_[\w.=-]{40,}", ("tfp_",)),
    ("vendor_token", r"pplx-" + _A + r"{40,}", ("pplx-",)),
    ("vendor_token", r"pnu_" + _A + r"{36}", ("pnu_",)),
    ("vendor_token", r"ntn_\d{11}" + _A + r"{35}", ("ntn_",)),
    ("vendor_token", r"rdme_[a-z0-9]{60,}", ("rdme_",)),
    ("vendor_token", r"AKCp" + _A + r"{60,}", ("akcp",)),
    ("vendor_token", r"CLOJARS_[a-z0-9]{60}", ("clojars_",)),
    ("vendor_token", r"shippo_(?:live|test)_" + _H + r"{40}", ("shippo_",)),
    ("vendor_token", r"duffel_(?:live|test)_[\w=-]{40,}", ("duffel_",)),
    ("vendor_token", r"sha256~[\w-]{43}", ("sha256~",)),
    ("vendor_token", r"EZ[AT]K" + _A + r"{50,}", ("ezak", "eztk")),
    ("vendor_token", r"ptr_" + _A + r"{40,}", ("ptr_",)),
    ("vendor_token", r"nfp_" + _B + r"{36,}", ("nfp_",)),
    ("vendor_token", r"sl\.[\w-]{100,}", ("sl.",)),
    ("vendor_token", r"1000\." + _H + r"{32}\." + _H + r"{32}", ("1000.",)),
    ("vendor_token", r"KEY01" + _B + r"{50,}", ("key01",)),
    ("vendor_token", r"pk-lf-" + _UUID, ("pk-lf-",)),
    ("vendor_token", r"sk-lf-" + _UUID, ("sk-lf-",)),
    ("vendor_token", r"access-(?:sandbox|production|development)-" + _UUID, ("access-",)),
    ("vendor_token", r"sk-or-v1-" + _H + r"{64}", ("sk-or-v1-",)),
    ("vendor_token", r"sk-ant-admin01-" + _B + r"{80,}", ("sk-ant-admin01-",)),
    ("vendor_token", r"gloas-" + _H + r"{64}", ("gloas-",)),
    ("vendor_token", r"dop_v1_" + _H + r"{64}", ("dop_v1_",)),
    ("vendor_token", r"doo_v1_" + _H + r"{64}", ("doo_v1_",)),
    ("vendor_token", r"dor_v1_" + _H + r"{64}", ("dor_v1_",)),
]


def alternation(indexes: tuple[int, ...]) -> str:
    """One pattern for the formats VENDORS[i] of `indexes`: group k+1 is VENDORS[indexes[k]]."""
    body = "|".join(f"({VENDORS[i][1]})" for i in indexes)
    return r"(?<![A-Za-z0-9_.+/-])(?:" + body + r")(?![A-Za-z0-9_+/=-]|\.[A-Za-z0-9])"


TRIGGERS = [(trigger, index) for index, (_, _, triggers) in enumerate(VENDORS) for trigger in triggers]
