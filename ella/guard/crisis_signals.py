"""Crisis signals that are not phrased as wanting to die: method research, means acquired with intent, farewells,
arrangements for after, self-injury behaviours, and "the world without me".

Why a module of their own: the phrase lexicon and the self + intent + harm rules in ``crisis.py`` catch what
people *say* about dying; clinicians also read what people *do* and *ask* (warning signs: researching methods,
acquiring means, putting affairs in order, saying goodbye, rehoming pets). Those read as ordinary sentences one
word at a time, so each rule here pairs a behaviour with a cue of finality or harm that must appear in the same
message (``requires``), which keeps "I bought a rope for the tyre swing" and "we rehomed the cat because of
my allergy" quiet.
"""

from __future__ import annotations

import re

from ella.guard.rules import Rule, all_of, only_with, preceded_by, rule, unless
from ella.guard.types import Category, Severity

C = Category.EMOTIONAL_CRISIS
HIGH, MEDIUM = Severity.HIGH, Severity.MEDIUM

_MEANS = (
    r"(?:rope|noose|razor ?blades?|blades?|pills|tablets|paracetamol|tylenol|sleeping pills|painkillers|charcoal|"
    r"helium|a gun|gun|bullets|pistol|rifle|poison|antifreeze|bleach)"
)
_FINALITY = (
    r"\b(?:not (?:going to|gonna) pretend|not for (?:camping|a project|a book|work)|know what i'?m (?:going|gonna) "
    r"(?:to )?do|tonight'?s the night|when (?:everyone|they|he|she)'?s? (?:asleep|out|gone)|enough to|"
    r"just in case|for me\b|end it|end this|ending it|goodbye|good ?bye|last (?:time|night|day)|won'?t (?:need|be "
    r"(?:here|around))|when i'?m gone|after i'?m gone|for after|so (?:it|this) (?:ends|stops|is over)|for good|"
    r"forever|one way|the only way|no way out|my plan|the plan|ready)"
)


_ACQUIRED = (
    r"\b(?:bought|buying|got|getting|ordered|ordering|found|picked up|stocked up on|saved up|hidden|hid|hiding|"
    r"stashed|collected|have got|i have)\b"
)
_DEATH_PLACE = r"(?:bridge|roof|rooftop|building|car ?park|balcony|cliff|ledge|tower|tracks|platform|overpass|window)"

_BETTER_BEFORE = r"\b(?:lighter|better|easier|happier|quieter|calmer|fine|relieved|better off)\b[^.!?]*$"
_PLAN_CONTEXT = (
    rf"\b(?:{_DEATH_PLACE}|rope|pills|jump|fall|end it|die|dying|dead|suicide|overdose|not (?:be )?(?:here|around)|"
    r"survive|goodbye|ruin)\b"
)

_JOKING = r"|\b(?:lol|lmao|haha\w*|kidding|jk|joking|lottery|if i win)\b"
_MOVING = (
    r"\b(?:moving|move|moved|relocat\w*|emigrat\w*|abroad|new (?:job|city|country|place|flat|house)|visa|"
    r"lisbon|london|paris|berlin|country|city|town|job|work|company|school|uni|team|band|group chat|app|"
    r"social media|instagram|tiktok|twitter|facebook|server|coffee|food|smoking|sugar|drinking|habit)\b"
)

RULES: tuple[Rule, ...] = (
    # "suicide feels like the only option", "suicide is the only way out"
    rule(
        "crisis.signal.only_option",
        C,
        HIGH,
        r"\b(?:suicide|dying|death|ending it|ending my life|killing myself|not being here|disappearing)\s+"
        r"(?:\w+\s+){0,3}?(?:the|my)\s+(?:only|best|easiest|last|one)\s+(?:\w+\s+)?(?:option|way(?: out)?|"
        r"answer|choice|solution|exit|escape)\b",
        self_check=True,
    ),
    rule(
        "crisis.signal.only_way_out",
        C,
        HIGH,
        r"\b(?:only|one)\s+way\s+out\s+(?:\w+\s+){0,3}?(?:i (?:can )?see|left|for me|is (?:to )?(?:die|end|go|"
        r"leave))\b",
        requires=r"\b(?:suicide|die|dying|dead|death|end it|ending it|my life|live|living|alive|exist)\b",
    ),
    rule(
        "crisis.signal.except_ending_it",
        C,
        HIGH,
        r"\b(?:except|but|other than|apart from|besides|only option is|only choice is)\s+(?:just\s+)?(?:ending (?:it|"
        r"it all|my life|everything)|dying|killing myself|suicide|to die|to end it)\b",
        self_check=True,
    ),
    # method research: "researching suicide methods", "how many paracetamol so you don't wake up",
    # "how long does it take to bleed out", "does drowning hurt", "how high to not survive the fall"
    rule(
        "crisis.signal.method_research",
        C,
        HIGH,
        r"\b(?:suicide|painless|quickest|quick|easiest|surest|fastest|peaceful|best)\s+(?:\w+\s+)?(?:methods?|ways? "
        r"(?:to|of) (?:die|dying|go|end (?:it|my life)|kill (?:myself|yourself|oneself)))\b|\b(?:research(?:ing|ed)?|"
        r"look(?:ing|ed)? up|googl(?:e|ing|ed)|read(?:ing)? (?:up )?(?:about|on))\s+(?:\w+\s+){0,2}?(?:suicide|ways to "
        r"die|how to die|how to kill|methods|overdos\w*|lethal)\b",
        after=r"\s+(?:prevention|awareness|rates?|statistics|for (?:a|my|the|an) (?:essay|paper|class|course|thesis|"
        r"article|book|story|novel|project))\b",
    ),
    rule(
        "crisis.signal.lethality_question",
        C,
        HIGH,
        r"\bhow (?:many|much)\s+(?:\w+\s+){0,3}?(?:would|does|do|will|to|it takes?|would it take|to take)\b"
        r"(?:\s+\w+){0,6}?\s+(?:(?:not|never|don'?t|do not|won'?t|wouldn'?t) wake up|die|"
        r"kill (?:me|you|myself|a person|someone)|be fatal|be lethal|stop (?:my|your) heart|overdose)\b|"
        r"\bhow (?:high|tall|far)\s+(?:\w+\s+){0,6}?(?:to make sure|so "
        r"(?:that )?(?:you|i|u)|to (?:not|never)|(?:you|i|u) (?:don'?t|won'?t|wouldn'?t))\s+(?:\w+\s+){0,3}?"
        r"(?:survive|wake up|live)\b|\bhow long\s+(?:\w+\s+){0,3}?(?:does it|would it|it) takes?\s+(?:\w+\s+){0,2}?"
        r"to\s+(?:bleed out|drown|suffocate|die|lose consciousness|pass out from)\b",
        requires=r"\b(?:i|me|my|myself|for me|asking for me|not for a (?:book|story)|just need to know|so "
        r"(?:you|u|i) (?:don'?t|do not|never))\b|^\W*(?:how|does|would)\b",
        after=r"\s*(?:\w+\s+){0,3}?(?:in (?:the|a|my) (?:book|story|film|movie|novel|game|show)|for (?:my|a|the) "
        r"(?:book|story|novel|essay|class))",
    ),
    rule(
        "crisis.signal.does_it_hurt",
        C,
        HIGH,
        r"\b(?:does|would|will|do you think|do you reckon|is it true)\s+(?:it|drowning|hanging|bleeding out|an "
        r"overdose|jumping|dying|suffocating)\s+(?:\w+\s+)?hurts?\b|\bi'?m (?:going to|gonna) do it (?:either way|"
        r"anyway|regardless|no matter what)\b",
        requires=r"\b(?:drowning|drown (?:myself|yourself|oneself)|hanging|hang (?:myself|yourself)|bleeding out|bleed "
        r"out|overdos\w*|jumping off|dying|to die|suffocat\w*|slit\w*)\b",
        after=r"\s*(?:\w+\s+){0,3}?(?:in (?:the|a|my) (?:book|story|film|movie|novel|game|show))",
    ),
    # means acquired with intent: "bought a rope today, not going to pretend it's for camping". The pattern is
    # the means (a rare word, so the rule is skipped for most messages); the guard wants the acquiring verb.
    rule(
        "crisis.signal.means_acquired",
        C,
        HIGH,
        rf"\b{_MEANS}\b",
        requires=_FINALITY,
        guard=preceded_by(_ACQUIRED),
        self_check=True,
    ),
    # plans: "planning how I'd do it; the bridge near work is high enough", "I've decided: sunday"
    rule(
        "crisis.signal.plan",
        C,
        HIGH,
        r"\b(?:planning|planned|figured out|worked out|decided on|picked|chosen)\s+(?:out\s+)?(?:how|when|where|"
        r"the (?:day|date|place|time|spot|way))\s+(?:\w+\s+){0,3}?(?:do it|i'?ll do it|i'?d do it|to do it|go|"
        r"end it|it happens)\b",
        requires=_PLAN_CONTEXT,
        self_check=True,
    ),
    rule("crisis.signal.high_enough", C, HIGH, r"\bhigh enough\b", requires=_PLAN_CONTEXT, self_check=True),
    rule(
        "crisis.signal.decided",
        C,
        HIGH,
        r"\bi'?ve decided\b[^.!?]{0,40}\b(?:end it|go|do it)\b",
        requires=_PLAN_CONTEXT,
    ),
    rule(
        "crisis.signal.end_it_dated",
        C,
        HIGH,
        r"\b(?:going to|gonna|will|i'?ll|decided to|plan(?:ning)? to)\s+end it\s+(?:all\s+)?(?:on|this|tonight|"
        r"tomorrow|next|after|before|when)\b",
        guard=unless(
            r"\b(?:with (?:him|her|them)|relationship|boyfriend|girlfriend|partner|"
            r"husband|wife|dating|the lease|contract|subscription|the call|meeting)\b"
        ),
    ),
    # "thinking about stepping in front of the train", "wish I'd get hit by a bus so it'd be over"
    rule(
        "crisis.signal.in_front_of",
        C,
        HIGH,
        r"\b(?:think(?:ing)? about|thought about|keep thinking about|fantasi[sz](?:e|ing) about|imagin(?:e|ing) |"
        r"tempted to|urge to|want to|wanna|going to|gonna|could just|might)\s*(?:\w+\s+)?(?:step|stepping|walk|"
        r"walking|jump|jumping|throw(?:ing)? myself|lie|lying|drive|driving|swerv\w+)\s+(?:down\s+)?(?:in front of|"
        r"onto|into|under|off)\s+(?:a|the|an|my)?\s*(?:\w+\s+)?(?:train|bus|car|lorry|truck|traffic|tracks|"
        r"motorway|highway|bridge|cliff|roof|building)\b",
        negatable=True,
        self_check=True,
    ),
    rule(
        "crisis.signal.wish_accident",
        C,
        MEDIUM,
        r"\b(?:wish(?:ing)?|hop(?:e|ing)|pray(?:ing)?)\s+(?:\w+\s+){0,3}?(?:get|got|be|was|were)\s+(?:hit by|run over|"
        r"killed|in a (?:crash|car crash|accident))\b",
        self_check=True,
    ),
    # self-injury behaviours: "burning my arm with a lighter when it gets bad", "scratching my wrists till they bleed"
    rule(
        "crisis.signal.self_injury_behaviour",
        C,
        HIGH,
        r"\b(?:burn(?:ing|t|ed)?|scratch(?:ing|ed)?|carv(?:e|ing|ed)|cut(?:ting)?|hit(?:ting)?|punch(?:ing|ed)?|"
        r"bit(?:e|ing)|pick(?:ing)?|bang(?:ing|ed)?|slic(?:e|ing|ed)|stab(?:bing|bed)?)\s+(?:at\s+)?(?:\w+\s+)?(?:my|"
        r"myself)\s*(?:\w+\s+)?(?:arms?|wrists?|legs?|thighs?|skin|stomach|hips?|hands?|head|forearms?|ankles?)?\b",
        requires=r"\b(?:lighter|blade|razor|sharpener|compass|till (?:it|they|i) bleeds?|until (?:it|they|i) "
        r"bleeds?|bleed|bled|blood|scars?|when it gets (?:bad|too much)|only thing that helps|helps me cope|"
        r"punish(?:ing)? myself|again|on purpose|relapse\w*|deserve (?:it|the pain))\b",
        self_check=True,
        negatable=True,
    ),
    # "I don't think I'll be around much longer", "won't be here for it", "can't see myself making it to christmas"
    rule(
        "crisis.signal.not_around",
        C,
        MEDIUM,
        r"\b(?:don'?t|do not|dont)\s+think\s+i'?(?:ll| will)\s+be\s+(?:here|around|alive)\s+(?:much longer|for long|"
        r"long|by|next|to see|at|for)\b|\b(?:won'?t|will not|wont)\s+be\s+(?:here|around|alive)\s+(?:for|by|to see|"
        r"much longer|next)\b|\bsee myself\s+(?:\w+\s+)?making it\s+(?:to|through|past)\b|\b(?:can'?t|cannot|don'?t) "
        r"see (?:a|any) future (?:where|in which|with) (?:i'?m|me) (?:still )?(?:here|alive|around|in it)\b|"
        r"\b(?:no|not a|don'?t have a)\s+future (?:for me|left)\b",
        guard=unless(
            r"\b(?:travel\w*|holiday|vacation|trip|abroad|away|moving|move|visit\w*|"
            r"conference|working|shift|out of town|flight|hospital stay|leave)\b"
        ),
    ),
    # farewells: "the last time we'll talk", "they don't know it was goodbye"
    rule(
        "crisis.signal.farewell",
        C,
        HIGH,
        r"\b(?:the )?last time (?:we'?ll|we will|i'?ll|i will|you'?ll|you will) (?:ever )?(?:talk|speak|chat|hear "
        r"from me)\b|\bdon'?t know (?:it was|that was|this is|it'?s) (?:a |my )?(?:goodbye|the last time)\b|"
        r"\bsaid (?:my )?goodbyes?\b[^.!?]{0,60}\b(?:in my own way|they don'?t know|without them knowing|for the "
        r"last time)\b",
    ),
    # affairs in order: "sorted out my will and written letters to everyone", "rehome my cat, won't be able to..."
    rule(
        "crisis.signal.affairs_in_order",
        C,
        HIGH,
        r"\b(?:sorted|sorting|written|wrote|writing|made|making|updated|finished|put)\s+(?:out\s+|in order\s+)?"
        r"(?:my\s+|a\s+|some\s+|the\s+)?(?:will|affairs|letters?|notes?)\b",
        requires=r"\b(?:letters? to everyone|everyone i (?:care about|love)|weirdly calm|at peace|feel calm|"
        r"goodbye|tonight'?s the night|just in case|when i'?m gone|after i'?m gone|last (?:words|goodbye|"
        r"letters?)|i'?m ready)\b",
        self_check=True,
    ),
    rule(
        "crisis.signal.rehoming",
        C,
        HIGH,
        r"\b(?:rehome[ds]?|rehoming|(?:find|found|finding) (?:a )?(?:new )?home for|look after (?:my|him|her|them)|"
        r"gave (?:away )?my (?:dog|cat|pets?|puppy|kitten|bird|rabbit|hamster|\w+) to)\b",
        requires=r"\b(?:won'?t be (?:able|here|around)|(?:actually|still) be (?:around|here)|be around next|"
        r"much longer|not (?:going|coming) (?:travelling|traveling|"
        r"back)|after i'?m gone|when i'?m gone|i'?m not going|won'?t need|told (?:her|him|them) i was|lied)\b",
        self_check=True,
    ),
    # "the world will keep spinning without me and that sounds like a relief", "better off with the insurance"
    rule(
        "crisis.signal.world_without_me",
        C,
        MEDIUM,
        r"\bwithout me (?:in it|here|around|alive)?\b[^.!?]{0,50}\b(?:relief|peaceful|better|easier|lighter|fine|"
        r"happier)\b|\bbetter off\s+(?:\w+\s+){0,6}?than (?:with )?me\b|\b(?:peaceful|nice|a relief|relief|easier|"
        r"restful|bliss)\b[^.!?]{0,40}\b(?:not exist(?:ing)?|not be(?:ing)? (?:here|alive|around)|never wak(?:e|ing) "
        r"up|not wak(?:e|ing) up|be(?:ing)? dead|being gone|to just stop)\b",
        self_check=True,
    ),
    rule(
        "crisis.signal.dont_wake",
        C,
        HIGH,
        r"\bif i (?:don'?t|do not|never) wake up\b[^.!?]{0,10}[.!,]?[^.!?]{0,60}\b(?:don'?t be sad|it'?s what i want|"
        r"it'?s okay|it'?s ok|that'?s okay|that'?s fine|i'?m ready|i want (?:it|that)|for the best|relief)\b",
    ),
    rule(
        "crisis.signal.check_out",
        C,
        HIGH,
        r"\b(?:check(?:ing)? out|clock(?:ing)? out|log(?:ging)? off|leave|leaving|go|going)\s+(?:for good|"
        r"permanently|early from (?:life|this world)|of (?:this )?life)\b",
        after=r"\s+(?:coffee|food|tea|pizza|measure|reason|cause|luck|times|news|vibes)\b",
        guard=unless(_MOVING + r"|\b(?:hotel|account|shift|house|flat)\b"),
        self_check=True,
    ),
    rule(
        "crisis.signal.edge",
        C,
        HIGH,
        rf"\b(?:stood|standing|sat|sitting|was|been)\s+(?:\w+\s+){{0,2}}?(?:on|at|near)\s+(?:the )?(?:edge|ledge|"
        rf"railing)s?\s+of\s+(?:the|a|my)?\s*(?:[\w'-]+\s+){{0,3}}?{_DEATH_PLACE}\b",
        requires=r"\b(?:nearly|almost|went over|jump|going back|thinking about|tempted|tonight|wanted to|step)\b",
        self_check=True,
    ),
    rule(
        "crisis.signal.would_anyone_care",
        C,
        MEDIUM,
        r"\bwould (?:anyone|anybody|people|they|my family|you) (?:even |actually |really )?(?:care|notice|miss me|"
        r"mind|come to my funeral)\b",
        requires=r"\bif i (?:\w+\s+)?(?:disappeared|died|was gone|were gone|wasn'?t here|weren'?t here|vanished|"
        r"killed myself|was dead|were dead|left for good|didn'?t come (?:back|home)|never came (?:back|home)|never "
        r"woke up|didn'?t wake up)\b",
    ),
    rule(
        "crisis.signal.funeral",
        C,
        MEDIUM,
        r"\b(?:imagin(?:e|ing|ed)|picture|picturing|think(?:ing)? about|dream(?:ing|t)? about|plan(?:ning)?)\s+"
        r"(?:\w+\s+)?my (?:own )?funeral\b",
        requires=r"\b(?:relie\w+|peace\w*|better|calm|finally|want|soon|everyone would)\b",
    ),
    # Slang and euphemisms people use to get past filters: "top myself", "kys myself", "unalive", "sewer slide".
    rule(
        "crisis.signal.slang",
        C,
        HIGH,
        r"\b(?:top|off|end|unalive|delete|yeet)\s+my ?self\b|\bself[\s.-]*delet(?:e|ing|ion)\b|\bkys my ?self\b|"
        r"\bsewer ?slide\b|\bunaliv(?:e|ing)\b"
        r"(?!\s+(?:you|him|her|them|the|that|this|people))|\bctb\b",
        # a question about the word itself: "why do YouTubers say 'unalive'?"
        guard=unless(
            r"\b(?:youtubers?|tiktokers?|algorithm|the word|slang|mean(?:s|ing)?|teens say|kids say|people "
            r"say|essay|euphemism|censor\w*)\b"
        ),
        negatable=True,
        self_check=True,
        reported=True,
    ),
    # A first-person "suicide ..." statement: "suicide is on my mind", "suicide plan is ready".
    rule(
        "crisis.signal.suicide_statement",
        C,
        HIGH,
        r"\bsuicide\s+(?:\w+\s+){0,2}?(?:is|seems|feels|plan|plans|thoughts?|on my mind|keeps|has been|note|letter|"
        r"attempt)\b",
        requires=r"\b(?:i|i'?m|me|my|myself|ready|tonight|written|decided|soon)\b",
        after=r"\s*(?:\w+\s+)?(?:rates?|prevention|awareness|squad|statistics|hotline|forest|bombers?|doors?|"
        r"mission|king|drill|pact in (?:the|a) (?:film|book|show))\b",
        self_check=True,
        negatable=True,
    ),
    rule(
        "crisis.signal.drive_into",
        C,
        HIGH,
        r"\b(?:drive|driving|drove|crash|crashing|swerve|swerving|steer|steering|veer)\s+(?:\w+\s+){0,3}?(?:into|"
        r"off|over)\s+(?:a|the|an|some)\s+(?:tree|brick wall|barrier|lorry|truck|bridge|cliff|oncoming \w+|"
        r"embankment|pillar)\b",
        requires=r"\b(?:on purpose|going to|gonna|want to|wanna|thinking|might|tempted|nobody (?:will|would)|"
        r"no one (?:will|would)|look like an accident|next time|end it|tonight)\b",
        self_check=True,
        negatable=True,
    ),
    rule(
        "crisis.signal.calling_me",
        C,
        MEDIUM,
        r"\b(?:keep|keeps|is|are|been|started|start)\s+(?:\w+\s+)?calling (?:me|to me|my name)\b|\bhow easy it "
        r"would be\b|\b(?:didn'?t|did not|don'?t|do not) want to (?:come|drive|walk|go) back\b|\bnext time i "
        r"(?:might|may|will|won'?t) not\b",
        requires=rf"\b(?:{_DEATH_PLACE}|water|sea|river|pills|rope|jump|step off|drive off|end it|ending it|cliffs?)\b",
    ),
    rule(
        "crisis.signal.pills_stashed",
        C,
        HIGH,
        r"\b(?:saving|saved|stockpil\w+|hoard\w*|collecting|stashing|hiding)\s+(?:them|these|those|it)\s+up\b|"
        r"\b(?:staring|stared|looking|looked|sitting|sat)\s+(?:at\s+|with\s+)?(?:the|a|my|this)\s+(?:\w+\s+){0,2}?"
        r"(?:bottle|box|pack|packet|handful|pile|stash)\s+of\s+(?:pills|tablets|meds|paracetamol|painkillers|"
        r"sleeping pills)\b",
        requires=r"\b(?:meds|pills|tablets|paracetamol|painkillers|medication)\b",
        guard=unless(r"\b(?:to check|the dose|dosage|expiry|expired|label|prescription (?:says|label))\b"),
    ),
    rule(
        "crisis.signal.lethal_height",
        C,
        HIGH,
        r"\bhow (?:high|tall|far|deep|many|much)\s+(?:\w+\s+){0,4}?(?:need to be|needs to be|would it take|does it "
        r"take|is enough|is fatal|is lethal|would kill|to be sure)\b",
        requires=r"\b(?:asking for (?:myself|me)|for me\b|not for a (?:story|book)|to (?:die|not survive|be sure)|"
        r"fatal|lethal|so i (?:don'?t|won'?t)|kill (?:me|myself)|balcony|bridge|roof|building|pills|paracetamol)\b",
        guard=unless(
            r"\b(?:for (?:my|the|a) (?:plant|garden|fence|shelf|wall|house|extension|pool|cake|recipe|"
            r"essay|book|story|game|project)|planning permission|building regs|regulations)\b"
        ),
    ),
    rule(
        "crisis.signal.after_im_gone",
        C,
        MEDIUM,
        r"\b(?:after|when|once)\s+i'?(?:m| am)\s+(?:gone|no more|dead|no longer (?:here|around|alive))\b|"
        r"\b(?:after|when|once)\s+i\s+(?:die|am no more|don'?t wake up)\b",
        requires=r"\b(?:write|wrote|read|letter|note|tell|story|socials|kids|remember|look after|miss|sort|before i "
        r"go|made up my mind|lighter|better|easier|relief|happier|no one|nobody|anyone)\b",
        guard=unless(
            r"\b(?:solicitor|lawyer|estate|inheritance|retire\w*|pension|grandkids|grandchildren|old age|"
            r"when i'?m old|someday|some day|eventually|in (?:\w+\s+)?years|decades|one day|i'?m (?:7|8|9)\d)\b"
        ),
    ),
    rule(
        "crisis.signal.not_in_it",
        C,
        MEDIUM,
        r"\bwhen i'?m (?:not (?:in it|here|around|alive)|gone|dead|no longer (?:here|around))\b",
        guard=preceded_by(_BETTER_BEFORE),
        self_check=True,
    ),
    rule(
        "crisis.signal.not_in_it",
        C,
        MEDIUM,
        r"\bnot (?:going to|gonna) be (?:here|around|alive) (?:much longer|for long|long|anyway)\b",
        self_check=True,
    ),
    rule(
        "crisis.signal.permanent",
        C,
        HIGH,
        r"\b(?:break|rest|relief|freedom|holiday|vacation)\s+from me\b[^.!?]*[.!?,]?\s*(?:\w+\s+){0,3}?(?:a\s+)?"
        r"(?:permanent\w*|for good|forever)\b|\bpermanent (?:solution|sleep|goodbye|exit|escape|way out|rest)\b",
        self_check=True,
    ),
    rule(
        "crisis.signal.leave_forever",
        C,
        MEDIUM,
        r"\b(?:leave|leaving|go|going|gone|disappear|disappearing|vanish)\s+(?:\w+\s+)?(?:forever|for good|"
        r"permanently)\b",
        requires=r"\b(?:selfish|burden|relies on|rely on|better off|miss me|nobody|no one|done being|tired of|"
        r"can'?t do this|goodbye|the world|this world|life|alive)\b",
        guard=unless(
            r"\b(?:job|work|company|country|city|town|house|flat|uni|school|team|band|group|server|app|"
            r"twitter|instagram|facebook|tiktok|social media|relationship|him|her)\b"
        ),
        self_check=True,
    ),
    rule(
        "crisis.signal.waiting_to_be_hit",
        C,
        MEDIUM,
        r"\b(?:waiting|hoping|wishing|praying|want(?:ing)?)\s+for\s+(?:a|the|some)\s+(?:\w+\s+)?(?:bus|car|train|"
        r"truck|lorry|meteor|asteroid|heart attack|accident|plane)\s+to\s+(?:hit|take|kill|end|run (?:me )?over|"
        r"crash)\b",
    ),
    rule(
        "crisis.signal.why_bother",
        C,
        MEDIUM,
        r"\bwhy (?:do |would |should )?i (?:even )?bother (?:coming back up|waking up|living|existing|getting up|"
        r"breathing|staying alive|being alive|going on)\b|\bwhy (?:am i|i'?m|do i keep|should i keep|do i even) "
        r"(?:still )?(?:here|alive|around|hanging around|breathing|living|existing|going)\b",
        after=r"\s+(?:at|in|on|so late|this late|working|waiting|at work|with|after|doing|for)\b",
        requires=r"\b(?:miss me|point|bother|burden|nobody|no one|no-one|tired|done|hate|worthless|useless|alone|"
        r"anyway|honestly)\b",
    ),
    rule(
        "crisis.signal.not_your_fault",
        C,
        HIGH,
        r"\bif i (?:don'?t|do not|never) (?:message|text|reply|answer|wake up|come back|make it|talk to you|write)\b"
        r"[^.!?]{0,20}[.!?,]?\s*(?:\w+\s+){0,4}?(?:wasn'?t your fault|not your fault|i love you|thank you for "
        r"everything|goodbye|don'?t be sad|it'?s ok|it'?s okay)\b|\bwon'?t be (?:reading|here to read|around to "
        r"read|able to read|here to see) (?:it|this|them|your reply)\b",
    ),
    rule(
        "crisis.signal.understand_later",
        C,
        HIGH,
        r"\b(?:he|she|they|you)(?:'?ll| will) understand (?:later|one day|soon|eventually|why|when)\b|\bbefore i go"
        r"\s*(?:[.!,;]|$)|\btidying up (?:my|before|loose ends)|\bloose ends\b",
        requires=r"\b(?:gave|give|giving|told (?:him|her|them) i love|will|letters?|goodbye|socials|sort|sorted|"
        r"cancel\w*|my things|my stuff|belongings|paid off|spare key|cleaned|tidied)\b",
        guard=unless(
            r"\b(?:holiday|vacation|trip|travel\w*|flight|moving|move|work|the office|shift|uni|"
            r"university|term|semester)\b"
        ),
    ),
)

# ---- plans stated without naming the act, vanishing for good, final acts (guard-1.3.0) ----------------------
# Each rule pairs a means, a place or an act with what makes it about the speaker's death (looking again and
# again, a door shut, "I know what it's for", a thank-you that reads as the last), and names the everyday
# readings it must leave alone ("rope for the climbing gym", "the car is running late", "moving for good").

_FIRST_PERSON = only_with(r"\b(?:i|i'?m|i'?ve|i'?d|i'?ll|me|my|myself)\b")
_HOBBY = (
    r"\b(?:climbing|camping|hiking|sailing|boat|swing|tree|tent|gym|crafts?|project|garden|club|range|hunting|"
    r"clay|pigeon|nerf|water gun|paintball|airsoft|video ?game|game|film|movie|show|book|novel|story|museum|"
    r"class|course|lesson|licen[cs]e|collection|collector|police|army|military|deer|season|scouts?|knots|"
    r"guides|brownies|cubs)\b"
)
_DENIED_HOBBY = re.compile(r"\bnot (?:\w+\s+){0,4}?for (?:climbing|camping|a project|the garden|work|a swing)\b")
_HOBBY_RE = re.compile(_HOBBY)


def _hobby_reading(text: str, _match: re.Match[str]) -> bool:
    """Reject when a hobby explains the means ("rope for the climbing gym"), unless the hobby is denied ("I'm
    not going to use it for climbing")."""
    return _HOBBY_RE.search(text) is not None and _DENIED_HOBBY.search(text) is None


_GUN = r"(?:gun|pistol|rifle|shotgun|revolver|handgun|firearm)s?"
_HIGH_PLACE = (
    r"(?:bridge|footbridge|overpass|flyover|viaduct|roof|rooftop|top floor|top storey|car ?park|parking "
    r"(?:garage|structure|deck)|tower|cliff|ledge|balcony|railing|edge)"
)
_EVERYDAY_PLACE = (
    r"\b(?:view|views|bar|restaurant|cafe|photos?|pictures?|selfies?|tour|tourists?|sunset|sunrise|fireworks|"
    r"date|picnic|park(?:ed|ing) (?:the|my) car|walk(?:ed|ing)? across|bridge club|club|festival|concert|"
    r"closed|repairs?|roadworks|detour|diversion|commute|scaffolding|stuck in traffic|traffic jam|"
    r"with (?:my|the|our) (?:friends?|family|kids?|dog|partner|husband|wife|boyfriend|girlfriend|mum|mom|dad))\b"
)
_PILLS_WORD = (
    r"(?:pills|tablets|meds|medication|paracetamol|tylenol|painkillers|sleeping (?:pills|tablets)|prescriptions?|"
    r"antidepressants|insulin|xanax|benzos|oxy\w*)"
)
_GOODBYE_CUE = (
    r"\b(?:thank (?:you|u) for everything|thanks for everything|thank you for (?:being|listening|all)|goodbye|"
    r"good ?bye|bye ella|don'?t be sad|it'?s (?:ok|okay)|i'?m sorry|you helped|take care of yourself|i love you|"
    r"remember me|wasn'?t your fault|not your fault|you'?ve been (?:kind|good|a friend)|for being (?:kind|there|"
    r"my friend)|you were (?:kind|good|there))\b"
)
_NO_SIGNAL = (
    r"\b(?:signal|wi-?fi|battery|flight|plane|hiking|camping|festival|trip|travel\w*|holiday|vacation|cinema|"
    r"movie|exam|busy|work|shift|sleep|bed|night,? night|good ?night|talk (?:soon|tomorrow|later)|ttyl|brb|"
    r"later|tomorrow'?s|phone (?:is )?dying|offline for)\b"
)

RULES += (
    # a rope or a knot, with what it is for: "bought rope, I know what it's for", "the knot is tied"
    rule(
        "crisis.plan.rope",
        C,
        HIGH,
        r"\b(?:rope|noose|cord|knot|belt)\b",
        requires=r"\b(?:know (?:exactly )?(?:what|why) (?:it'?s|it is|i (?:bought|got) it|i need it)|not (?:going to|"
        r"gonna) (?:use it )?for (?:climbing|camping)|(?:is|'s) (?:tied|ready|hanging|up)|tied (?:it|the)|practi[cs]"
        r"\w+ (?:the )?(?:knot|tying)|the beam|(?:beam|hook|rail|banister) (?:will|'?ll|would) hold|it'?ll hold|"
        r"strong enough(?: (?:to|for me)|,? i (?:checked|tested))|hang(?:ing)? (?:it|myself|from))\b",
        guard=_hobby_reading,
        self_check=True,
    ),
    rule(
        "crisis.plan.rope",
        C,
        HIGH,
        r"\bmeasur(?:ed|ing|e)\s+(?:the\s+)?(?:beam|cord|rope|belt|banister|rail)\b",
        guard=unless(_HOBBY),
        self_check=True,
    ),
    rule(
        "crisis.plan.rope",
        C,
        HIGH,
        r"\b(?:a|the|my)\s+noose\b",
        guard=unless(
            r"\b(?:film|movie|show|knots?|sailing|scouts|halloween|decoration|history|museum|book|novel|game|lyrics|"
            r"western|cowboy|hangman|tie)\b"
        ),
        self_check=True,
        reported=True,
    ),
    # a gun within reach, looked at again and again: "my dad's gun is in the drawer, I keep going back to it"
    rule(
        "crisis.plan.gun",
        C,
        HIGH,
        rf"\b{_GUN}\b",
        requires=r"\b(?:keep (?:going back to|looking at|staring at|thinking about|holding|checking)|kept (?:looking|"
        r"staring|holding|going back)|(?:i )?loaded (?:it|the)|load(?:ing)? it|in my mouth|to my head|how (?:quick|"
        r"easy|fast) it (?:would|could) be|(?:i )?know where (?:the )?(?:key|bullets|ammo|it) (?:is|are)|kept it by|"
        r"by my bed|under my pillow|thinking about (?:it|using it)|been thinking about it)\b",
        guard=all_of(_FIRST_PERSON, unless(_HOBBY)),
    ),
    # a high place visited again, or looked up: "walked out to the middle of the bridge again"
    rule(
        "crisis.plan.high_place",
        C,
        HIGH,
        rf"\b{_HIGH_PLACE}\b",
        requires=r"\b(?:again|keep (?:going|walking|driving|thinking)|kept going|every (?:night|day)|looking (?:down|"
        r"over)|look(?:ed)? down|lean(?:ed|ing)? over|over the (?:railing|edge|side)|middle of it|how (?:high|far "
        r"down|tall)|for an hour|for hours|just stood|stood there|sat there|climbed (?:over|up)|which (?:one|bridge|"
        r"building) i'?d|i'?d (?:use|go)|watching the (?:cars|traffic|lorries|trucks|trains|water))\b",
        guard=unless(_EVERYDAY_PLACE),
        self_check=True,
    ),
    rule(
        "crisis.plan.looked_up_height",
        C,
        HIGH,
        r"\b(?:looked up|looking up|look up|googled|googling|checked|checking|measured|found out|searched)\s+how\s+"
        r"(?:high|tall|far down|deep|long the drop)\b",
        requires=rf"\b(?:{_HIGH_PLACE}|building|garage|drop|fall|storeys?|floors?|water)\b",
        guard=unless(
            r"\b(?:for (?:my|a|the) (?:project|essay|homework|class|kid|son|daughter|quiz)|curious|trivia|fun fact|"
            r"architect\w*|tallest in|record|world'?s)\b"
        ),
    ),
    # the engine running in a closed garage, a hose on the exhaust, a garage door taped
    rule(
        "crisis.plan.garage",
        C,
        HIGH,
        r"\bgarage\b",
        requires=r"\b(?:engine|car|motor)(?:'?s)?\s+(?:\w+\s+){0,2}?(?:running|on|idling|started)\b|\b(?:closed|shut|sealed|"
        r"taped|locked)\b[^.!?]{0,40}\b(?:engine|car|motor|exhaust|fumes)\b|\btap(?:ed|ing|e) up\b",
        guard=unless(r"\b(?:running late|warm (?:it|the car) up|to warm|open|mechanic|repair\w*|service|stuck)\b"),
    ),
    rule(
        "crisis.plan.garage",
        C,
        HIGH,
        r"\b(?:hose|pipe|tube)\b[^.!?]{0,40}\bexhaust\b|\bexhaust\b[^.!?]{0,30}\b(?:hose|pipe|tube|window)\b",
        guard=unless(r"\b(?:mechanic|garage (?:said|says)|mot|repair\w*|leak\w*|rattl\w*|replaced|fix\w*)\b"),
    ),
    # a date or a day chosen, without saying for what: "I've picked a date. It's Friday."
    rule(
        "crisis.plan.date_chosen",
        C,
        HIGH,
        r"\b(?:i'?ve|i have|i|finally)\s+(?:\w+\s+)?(?:picked|chosen|chose|set|decided on|settled on|circled)\s+"
        r"(?:a|the|my)\s+(?:date|day|night)\b(?!\s+(?:for|to|of|with|at|on the calendar for)\b)",
        guard=unless(
            r"\b(?:wedding|party|test|exam|move|moving|holiday|trip|birthday|interview|appointment|meeting|launch|"
            r"surgery|operation|event|celebration|we|our|us|dinner|date night|gig|concert|excited|can'?t wait|yay|"
            r"so happy|booked|invite\w*|guests|venue|deadline|start date|due date)\b"
        ),
    ),
    rule(
        "crisis.plan.date_chosen",
        C,
        HIGH,
        r"\b(?:the )?date (?:is )?(?:circled|marked|set)\b",
        requires=r"\b(?:nobody|no one|no-one|only i) (?:knows|know)\b|\bwhat it means\b|\bcalmer\b",
    ),
    # pills put aside, counted, enough: "I've been putting a few tablets aside every week"
    rule(
        "crisis.plan.pills_saved",
        C,
        HIGH,
        rf"\b{_PILLS_WORD}\b",
        requires=r"\b(?:put(?:ting)? (?:\w+ ){0,3}?aside|set(?:ting)? (?:\w+ ){0,3}?aside|(?:have|got|there'?s) "
        r"enough(?: now)?|(?:kept|keeping|held|holding) back|(?:there'?s|i have|i'?ve got) (?:a lot|loads|plenty) "
        r"(?:now|saved)|counting (?:my|them|the)|counted (?:my|them|the)|a (?:good )?pile|a stash|hid(?:den|ing)? "
        r"(?:them|it|a|my)|lined up|saved (?:up|enough)|saving (?:up|them)|for when i'?m ready|to make sure|"
        r"(?:in|inside) (?:my|the) (?:sock drawer|glove ?box|drawer|bag|wardrobe) (?:for|until))\b",
        guard=all_of(
            _FIRST_PERSON,
            unless(
                r"\b(?:headache|flu|cold|dose|dosage|expir\w*|prescription says|box says|the label|allerg\w*|"
                r"pharmacy|chemist|doctor (?:said|changed))\b"
            ),
        ),
        negatable=True,
    ),
    # wanting to vanish for good: "I want to vanish and never come back", "I wanna be gone for good"
    rule(
        "crisis.vanish.for_good",
        C,
        MEDIUM,
        r"\b(?:want|wanting|wanna|wish|wishing|need|going|gonna|ready|i'?d like|hope|hoping|can'?t wait|could just|"
        r"just want)\s+(?:\w+\s+){0,2}?(?:disappear|vanish|fade away|fade out|be gone|go away|stop existing|"
        r"cease to exist|leave this world|leave (?:this|the) earth)\s+(?:(?:and )?(?:never (?:come back|return|"
        r"be (?:found|seen)(?: again)?|wake up)|for good|forever|permanently|for ever|without a trace|from "
        r"(?:everyone|everything|this world|the world|existence)|and (?:not|never) (?:be|come) back))\b",
        guard=unless(
            _MOVING + r"|\b(?:weekend|month|week|detox|for a (?:bit|while|few)|under (?:a|the|my) "
            r"(?:blanket|duvet|covers)|into (?:a|this|the) book|from (?:this|the) (?:meeting|party|call|"
            r"conversation))\b"
        ),
        negatable=True,
        self_check=True,
    ),
    rule(
        "crisis.vanish.for_good",
        C,
        MEDIUM,
        r"\b(?:i'?ll|i will|i'?m going to|i'?m gonna|i'?m ready to|time for me to|it'?s time (?:for me )?to|soon i'?ll)"
        r"\s+(?:\w+\s+)?(?:be gone|go|leave (?:this|the) world|leave (?:everyone|everything)|check out|disappear|"
        r"vanish)\s+(?:for good|forever|permanently)\b",
        guard=unless(_MOVING + r"|\b(?:weekend|month|week|detox|holiday|vacation|trip)\b"),
        negatable=True,
        self_check=True,
    ),
    rule(
        "crisis.vanish.for_good",
        C,
        MEDIUM,
        r"\b(?:gone gone|not on (?:a )?holiday,? gone|gone for good and (?:nobody|no one|no-one|noone)|won'?t be "
        r"(?:around|here) after (?:this|tonight|tomorrow|the weekend|friday|\w+day))\b",
        self_check=True,
    ),
    # the last message, a thank-you that reads as the end: "this is my last message. thank you for being kind"
    rule(
        "crisis.farewell.last_message",
        C,
        HIGH,
        r"\b(?:this is|this'?ll be|this will be|here'?s|consider this)\s+(?:my|the)\s+(?:last|final)\s+(?:message|"
        r"text|words)\b|\b(?:last|final) (?:message|text|words) from me\b",
        requires=_GOODBYE_CUE + r"|\b(?:you'?ll hear from me|ever|you'?re the last|before i go)\b",
        guard=unless(_NO_SIGNAL + _JOKING),
    ),
    rule(
        "crisis.farewell.last_message",
        C,
        HIGH,
        r"\b(?:this is the last time you'?ll|the last time you will|you (?:won'?t|will not) hear from me again|you'?ll "
        r"never hear from me again|my final message|my last message to you|you'?re the last (?:one|person) i'?m "
        r"(?:talking|saying)|saying my goodbyes)\b",
        guard=unless(_NO_SIGNAL + _JOKING),
    ),
    rule(
        "crisis.farewell.if_you_dont_hear",
        C,
        HIGH,
        r"\bif (?:you|u) (?:don'?t|do not|never|stop) (?:hear(?:ing)?|get(?:ting)? (?:a message|anything))\s+"
        r"(?:\w+\s+){0,2}?(?:from me|again)|\b(?:if|in case) i'?m not (?:here|online|around|alive|on here)\s+"
        r"(?:\w+\s+){0,2}?"
        r"(?:tomorrow|in the morning|by (?:morning|tomorrow|monday|the weekend)|after (?:tonight|today))\b",
        requires=_GOODBYE_CUE + r"|\b(?:know that|thanks for listening|thank you for listening|all these)\b",
        guard=unless(_NO_SIGNAL),
    ),
    # final acts: rehoming a pet with a reason that reads as the end, a will left out, accounts closed
    rule(
        "crisis.final.rehoming",
        C,
        HIGH,
        r"\b(?:gave|given|giving|give)\s+(?:away\s+)?my\s+(?:\w+\s+)?(?:dog|cat|pets?|puppy|kitten|bird|rabbit|hamster|"
        r"guinea pig|fish|parrot|horse)\s+to\b|\b(?:found|finding|find)\s+(?:a\s+)?(?:new\s+)?(?:family|owner|home)\s+"
        r"for\s+my\s+(?:\w+\s+)?(?:dog|cat|pets?|puppy|kitten|bird|rabbit|hamster)\b",
        requires=r"\b(?:better care of (?:him|her|them|it) than i|take better care|look after (?:him|her|them|it) "
        r"better|than i (?:can|could)(?: now| ever)?|deserves? (?:someone|a family|an owner|better|a home)|who will "
        r"be around|won'?t be (?:around|here|able)|i can'?t any ?more|than i ever could)\b",
        guard=unless(
            r"\b(?:for the (?:weekend|week|holiday|trip)|while i(?:'m| am)? (?:away|travel\w*)|allerg\w*|"
            r"moving|landlord|new baby)\b"
        ),
    ),
    rule(
        "crisis.final.will",
        C,
        HIGH,
        r"\b(?:wrote|written|writing|write|made|making|finished|drafted|signed|left|leaving|put)\s+(?:out\s+)?"
        r"(?:\w+\s+)?(?:my|a)\s+will\b(?!\s+(?:be|to|and testament for the|power)\b)",
        guard=unless(
            r"\b(?:solicitor|lawyer|notary|mortgage|baby|married|pregnant|routine|insurance|estate plan\w*|retire\w*|"
            r"grown[ -]?up|adulting|adult thing|will power|willpower|free will|good will|goodwill)\b"
        ),
        self_check=True,
    ),
    rule(
        "crisis.final.accounts_closed",
        C,
        HIGH,
        r"\b(?:deleted|deleting|delete|closed|closing|cancelled|canceled|cancelling|shut down|wiped|deactivated)\s+"
        r"(?:all\s+)?(?:of\s+)?my\s+(?:\w+\s+)?(?:accounts|social media|socials|profiles|instagram|facebook|twitter|"
        r"tiktok|snapchat|phone contract|contract|email|subscriptions)\b",
        requires=r"\b(?:goodbye|bye|the last one|last (?:message|time|person|one)|you'?re the last|before i go|the "
        r"rest|won'?t need|letters|say bye|wrote everyone)\b",
        guard=unless(r"\b(?:years ago|spam|distract\w*|eats my|waste of time|detox|scam|hacked|privacy|data)\b"),
    ),
    rule(
        "crisis.final.given_away",
        C,
        HIGH,
        r"\b(?:gave|given|giving|give)\s+away\s+my\s+(?:\w+\s+){0,3}?\w+",
        requires=r"\b(?:won'?t (?:be )?(?:need|needing|using|use)|not (?:going to|gonna) need|don'?t need (?:them|it|"
        r"anything) (?:any ?more|where)|goodbye|after i'?m gone|where i'?m going)\b",
        guard=unless(
            r"\b(?:moving|move|declutter\w*|minimalis\w*|charity shop|outgrew|too small|upgrade\w*|company|"
            r"last day|job|colleagues|office|retir\w*|desk)\b"
        ),
    ),
    # after a near time, nothing will matter: "after tonight none of this will matter to me"
    rule(
        "crisis.final.after_tonight",
        C,
        HIGH,
        r"\bafter (?:tonight|today|tomorrow|this weekend|this week|friday|saturday|sunday|monday|tuesday|wednesday|"
        r"thursday)\b[^.!?]{0,40}?\b(?:none of (?:this|it) (?:will |is going to )?(?:matter|be my problem)|(?:it|"
        r"this|nothing) (?:won'?t|will not|will never) matter|nothing (?:will|is going to|'?ll) matter|"
        r"i won'?t (?:be here|be around|have to feel|feel "
        r"anything|be a problem)|won'?t be (?:my problem|a problem for anyone)|no more pain|i'?ll (?:finally )?be "
        r"free)\b",
        guard=unless(r"\b(?:exams?|deadline|shift|project|interview|wedding|holiday|match|game|finals?)\b"),
    ),
    # making the pain stop for good: "I'm going to make it so I never have to feel this again"
    rule(
        "crisis.final.make_it_stop",
        C,
        HIGH,
        r"\b(?:going to|gonna|will|i'?ll|want to|wanna|about to|ready to)\s+make\s+(?:it so|sure)\s+(?:that\s+)?i\s+"
        r"(?:never|don'?t|won'?t|can'?t)\s+(?:have to\s+)?(?:ever\s+)?(?:feel (?:this|anything|like this|again)|wake "
        r"up|hurt|suffer|exist|be here|be a (?:problem|burden))\b|\bmake\s+(?:the|this|it all|my)\s+(?:pain|hurt|"
        r"suffering|everything|life)\s+(?:stop|end|go away)\s+(?:for good|permanently|forever)\b|\bmake it so "
        r"(?:nobody|no one|no-one) (?:has|have) to (?:deal with|put up with|worry about) me\b",
        negatable=True,
        self_check=True,
    ),
    rule(
        "crisis.final.rather_not_exist",
        C,
        HIGH,
        r"\b(?:i'?d|i would|i)\s+(?:rather|prefer to|prefer)\s+(?:just\s+)?(?:not (?:exist|be alive|live|wake up|be "
        r"born)|not to exist|stop existing|never wake up|be dead|die)\b",
        after=r"\s+(?:than (?:eat|go to|go out|go back|sit|watch|listen|do|work|wear|be seen|admit|lose|miss|talk)|of "
        r"(?:boredom|"
        r"embarrassment|shame))\b|\s+(?:\w+\s+)?(?:lol|lmao|haha)",
        guard=unless(r"\b(?:lol|lmao|haha\w*)\b|😂|🤣"),  # "rather be dead than wear crocs lol": an idiom
        negatable=True,
    ),
    # hoping for the crash: "I keep driving fast hoping I'll hit something"
    rule(
        "crisis.final.hoping_to_crash",
        C,
        HIGH,
        r"\b(?:hoping|hope|hopin|wishing|praying|maybe)\s+(?:that\s+)?(?:i'?ll |i will |i |something |someone )?"
        r"(?:hit something|hits? me|crash(?:es)?|won'?t make (?:it|the (?:bend|turn|corner))|don'?t make it home|"
        r"lose control|spin out|go off the road)\b",
        requires=r"\b(?:driv\w*|drove|speed\w*|motorway|highway|road|car|bike|motorbike|fast|on purpose)\b",
        self_check=True,
    ),
    rule(
        "crisis.final.hoping_to_crash",
        C,
        HIGH,
        r"\b(?:drive|driving|drove|speed|speeding|ride|riding)\s+(?:\w+\s+){0,2}?(?:too fast|fast|recklessly)\s+on "
        r"purpose\b",
        self_check=True,
    ),
)

_MEANS_AT_HAND = r"(?:blades?|razors?|razor blades|rope|noose|gun|pistol|knife|knives|pills|tablets|bottle of pills)"

RULES += (
    # weighing one way against another: "which would be quicker, the bridge or the train line?"
    rule(
        "crisis.plan.which_way",
        C,
        HIGH,
        r"\bwhich (?:would be|is|'?d be|one is|one would be|way is|way would be) (?:the )?(?:quicker|quickest|faster|"
        r"fastest|less painful|least painful|more painless|surer|surest|more certain|more reliable|easier|easiest)\b",
        requires=rf"\b(?:{_HIGH_PLACE}|train|line|tracks|motorway|{_MEANS_AT_HAND}|jump\w*|drown\w*|overdose|"
        r"hang\w*|bleed\w*)\b",
    ),
    # how much of a drug is "too much", asked for oneself: "what amount of paracetamol is definitely too much?"
    rule(
        "crisis.plan.lethal_amount",
        C,
        HIGH,
        rf"\b(?:what amount|how much|how many)\s+(?:of\s+)?(?:\w+\s+)?{_PILLS_WORD}\s+(?:\w+\s+){{0,3}}?(?:too much|"
        r"too many|enough to|fatal|lethal|would kill|kills? you|the limit|where the line is|to not wake up)\b",
        guard=unless(
            r"\b(?:a day|per day|daily|in 24 hours|headache|fever|pain relief|period pain|toothache|(?:my|a) (?:son|"
            r"daughter|kid|child|baby|toddler)|dog|cat|accidentally|by mistake|doubled)\b"
        ),
    ),
    # means kept in mind: "I keep thinking about the blades in the bathroom cabinet"
    rule(
        "crisis.plan.means_in_mind",
        C,
        HIGH,
        rf"\b(?:keep|kept|can'?t stop|cannot stop)\s+(?:\w+\s+)?(?:thinking about|looking at|staring at|going back "
        rf"to)\s+(?:the|my|those|that)\s+(?:\w+\s+)?{_MEANS_AT_HAND}\b",
        guard=all_of(_FIRST_PERSON, unless(_HOBBY + r"|\b(?:forgot|forget|missed|side effects?|prescri\w*)\b")),
    ),
    # ending it, said bare: "ending it tonight"
    rule(
        "crisis.final.ending_it_now",
        C,
        HIGH,
        r"(?:^|[.!?]\s*)(?:i'?m\s+)?ending it (?:all\s+)?(?:tonight|today|tomorrow|this weekend|now|soon)\b",
        guard=unless(r"\b(?:with (?:him|her|them)|relationship|boyfriend|girlfriend|partner|dating|contract|lease)\b"),
    ),
    # others spared of me soon: "you won't have to listen to me for much longer"
    rule(
        "crisis.final.spared_of_me",
        C,
        HIGH,
        r"\b(?:won'?t|will not|wont|never) (?:\w+\s+)?have to (?:listen to|deal with|put up with|worry about|hear from|"
        r"look after|see|carry|pay for) me (?:\w+\s+)?(?:much longer|any ?more|any longer|soon|for long|again|after "
        r"(?:tonight|today|this))\b|\b(?:everyone|everybody|they|you|my family) (?:will|'?ll) (?:be free of|be rid "
        r"of|be done with) me\b|\bnot (?:going to|gonna) be (?:a problem|a burden|in (?:anyone'?s|your|the) way)\s+"
        r"(?:\w+\s+){0,2}?(?:much longer|any ?more|any longer|for long)\b",
        guard=unless(r"\b(?:moving|move|away|abroad|trip|holiday|job|graduat\w*|leaving home|uni)\b"),
    ),
    rule(
        "crisis.final.sorry_i_woke",
        C,
        HIGH,
        r"\b(?:gutted|disappointed|sad|upset|angry|annoyed|sorry|hate) (?:that )?i (?:woke up|wake up|am still (?:here|"
        r"alive)|'?m still (?:here|alive)|survived|didn'?t die)\b(?!\s+(?:late|early|at|so|before|after|to|with)\b)",
    ),
    rule(
        "crisis.final.better_parent",
        C,
        MEDIUM,
        r"\b(?:deserve|deserves|need|needs)\s+(?:a\s+)?(?:better|new|different)\s+(?:dad|mum|mom|father|mother|"
        r"parent|son|daughter|friend)\s+than me\b",
        requires=r"\b(?:get over (?:it|me)|without me|better off|when i'?m gone|once i'?m gone|forget me|move on)\b",
    ),
    rule(
        "crisis.final.insurance",
        C,
        HIGH,
        r"\blife insurance\b",
        requires=r"\b(?:(?:could|would|will|can) (?:finally )?(?:clear|pay off|be (?:okay|fine|set|looked after))|"
        r"better off|if i (?:die|died|was gone|wasn'?t here)|covers? suicide|pays? out (?:for|if|on) suicide)\b",
        self_check=True,
    ),
    rule(
        "crisis.farewell.quiet_goodbyes",
        C,
        HIGH,
        r"\bsaying (?:my )?(?:little )?goodbyes?\s+to\s+(?:people|everyone|everybody|my (?:friends|family|mum|mom|"
        r"dad|sister|brother))\b|\blittle goodbyes\b",
        requires=r"\b(?:in my head|they don'?t know|without them knowing|quietly|little goodbyes|for the last time|"
        r"one by one)\b",
    ),
    rule(
        "crisis.final.not_sticking_around",
        C,
        HIGH,
        r"\bnot (?:sticking|hanging|staying) around (?:to see|for|much longer|any ?more|any longer)\b",
        requires=r"\b(?:made (?:up )?my mind|already decided|i'?ve decided|decision|the plan|ready)\b",
        guard=unless(r"\b(?:party|job|company|town|city|relationship|him|her|team|club|meeting)\b"),
    ),
    rule(
        "crisis.plan.high_place",
        C,
        HIGH,
        r"\b(?:edge|end) of the (?:platform|roof|bridge|cliff|ledge|balcony)\b",
        requires=r"\b(?:longer than i should|a bit longer|keep (?:standing|stand|going)|again|leaning|lean over|"
        r"step(?:ping)? (?:off|forward)|thinking about|waiting for the (?:next |fast |express )?train)\b",
        self_check=True,
    ),
)

RULES += (
    # the engine running behind a shut door, without the word "garage"
    rule(
        "crisis.plan.garage",
        C,
        HIGH,
        r"\b(?:engine|motor|car)\s+(?:is\s+|'s\s+)?(?:running|on|idling)\b",
        requires=r"\b(?:door|doors|windows?)\s+(?:is\s+|are\s+)?(?:closed|shut|sealed|taped|locked)\b|\b(?:closed|"
        r"shut|sealed|taped) (?:the )?(?:door|doors|windows?)\b",
        guard=unless(
            r"\b(?:running late|warm (?:it|the car) up|to warm|mechanic|repair\w*|heating|air ?con|a/c|"
            r"driveway|petrol station|drive[- ]?thru|traffic)\b"
        ),
    ),
    # a place chosen, or a jump announced with the place: "I know which building I'd use"
    rule(
        "crisis.plan.place_chosen",
        C,
        HIGH,
        r"\bwhich (?:bridge|building|roof|cliff|tower|car ?park|overpass|balcony|spot|window|floor) i'?d (?:use|pick|"
        r"go (?:to|off|from)|jump (?:off|from)|choose)\b|\bi'?ve (?:picked|chosen|found) (?:the|a|my) (?:bridge|"
        r"building|roof|cliff|spot|place) (?:to|for|i'?d)\b",
    ),
    rule(
        "crisis.plan.jump_announced",
        C,
        HIGH,
        r"\b(?:going to|gonna|will|i'?ll|want to|wanna|about to|ready to|i could)\s+(?:just\s+)?(?:jump|let go|step "
        r"off|fall)\b(?!\s+(?:in|into|on|onto|at|to|the queue|ship|on the call|back|ahead|of|over to)\b)",
        requires=r"\b(?:top floor|roof|rooftop|bridge|building|balcony|ledge|window|cliff|overpass|car ?park|tower|"
        r"edge)\b",
        guard=unless(
            r"\b(?:parachute|bungee|skydiv\w*|pool|trampoline|lake|sea|river swim|zip ?line|diving board|"
            r"jumpers?|jump rope|high jump|long jump|rock climbing|boulder\w*)\b"
        ),
        negatable=True,
        self_check=True,
    ),
    rule(
        "crisis.plan.jump_announced",
        C,
        HIGH,
        r"\b(?:going|go|went|climb(?:ing|ed)?|walk(?:ing|ed)?|head(?:ing|ed)?)\s+up\s+(?:to\s+)?(?:the\s+)?(?:roof|top "
        r"floor|top of (?:the|my) (?:building|car ?park|tower)|bridge|ledge|cliff)\b[^.!?]{0,30}?\b(?:letting go|let "
        r"go|jump(?:ing)?|step(?:ping)? off|falling)\b",
        negatable=True,
        self_check=True,
    ),
    # farewells said as thanks: "I just want to thank you for everything before I go tonight"
    rule(
        "crisis.farewell.thanks_before_going",
        C,
        HIGH,
        r"\bbefore i go\b(?!\s+(?:to|out|on|back|home|in|into|shopping|for|and|off|away|abroad|get|grab|make|pick)\b)",
        requires=r"\b(?:thank (?:you|u) for everything|thanks for everything|goodbye|good ?bye|wanted to say|want "
        r"to say|tell you|you were|you'?ve been)\b",
        guard=unless(
            r"\b(?:holiday|vacation|trip|travel\w*|flight|moving|work|shift|uni|class|exam|bed|sleep|"
            r"dinner|gym|walk|run|meeting)\b"
        ),
    ),
    rule(
        "crisis.final.tonight_is_the_night",
        C,
        HIGH,
        r"\btonight(?:'?s| is) the night\b",
        requires=r"\b(?:made (?:my )?peace|ready|goodbye|decided|calm|at peace|no more|it'?s time|last)\b",
        guard=unless(
            r"\b(?:date|party|concert|game|match|premiere|finale|launch|show|gig|proposal|propose|"
            r"ask (?:her|him)|first)\b"
        ),
    ),
    rule(
        "crisis.final.know_how_and_when",
        C,
        HIGH,
        r"\bi know (?:exactly )?(?:how and when|when and how|how and where|where and when|when and where|where and "
        r"how)\b",
        requires=r"\b(?:plan\w*|decided|ready|going to do it|i'?ll do it|done|it all out)\b",
    ),
    rule(
        "crisis.final.want_out",
        C,
        MEDIUM,
        r"\bi (?:just |really )?want out\s*(?:[.!]|$|of (?:everything|it all|all of (?:it|this)|this (?:life|world)))",
        requires=r"\b(?:done|tired|can'?t|cannot|exhausted|pointless|no point|everything|it all|hate)\b",
        guard=unless(r"\b(?:job|work|contract|lease|group chat|relationship|marriage|deal|team|band|class|course)\b"),
    ),
    rule(
        "crisis.vanish.cant_wait",
        C,
        HIGH,
        r"\bcan'?t wait (?:to|till|until)\s+(?:i'?m\s+|i\s+)?(?:be gone|be dead|die|not be here|not exist|"
        r"stop existing|gone|dead|never wake up)\b(?!\s+(?:from|of|out|for the|on)\b)",
        guard=unless(_MOVING + r"|\b(?:holiday|vacation|trip|weekend|summer|this week|exams?)\b"),
    ),
)

RULES += (
    # a message left for someone after: "please tell my sister I'm sorry and that it wasn't her fault"
    rule(
        "crisis.farewell.relay",
        C,
        HIGH,
        r"\b(?:tell|let)\s+(?:my\s+)?(?:\w+\s+)?(?:know\s+)?(?:that\s+)?(?:i'?m sorry|i love (?:her|him|them)|i always "
        r"loved|it (?:wasn'?t|was not|isn'?t) (?:her|his|their|your) fault)\b",
        requires=r"\b(?:(?:wasn'?t|was not|isn'?t|not) (?:her|his|their|your) fault|not to blame|i always loved|after "
        r"i'?m gone|when i'?m gone|goodbye|for everything)\b",
        guard=unless(r"\b(?:missed|late|forgot|party|argument|fight|text back|call back|dinner)\b"),
    ),
    rule(
        "crisis.final.done_this_time",
        C,
        MEDIUM,
        r"\b(?:actually|really|properly|truly|completely|finally) done this time\s*[.!]*\s*$",
        requires=r"\bi'?m done\b|\bi think i'?m done\b",
    ),
)

# ---- guard-1.4.0: method questions, means at hand, answers with a time, farewells to the family, self-injury ----
# Families read off the misses of issue 25's third English blind file (tests/data/guard_blind3_en.jsonl, which is
# from then on a tuned file): each is written as the behaviour, not the sentence, and each names the everyday
# reading it leaves alone. The sealed English file was never read; it measures whether they generalise.
_FICTION_OR_GAME = (
    r"\b(?:minecraft|game|gaming|character|characters|gta|skyrim|elden ring|dark souls|the sims|sims|speedrun|boss|"
    r"level|novel|story|fiction|plot|npc|villain|zombie|apocalypse|movie|film|show|series|book|dnd|d&d|campaign|"
    r"fortnite|warzone|roblox)\b"
)
_HARMFUL = (
    r"\b(?:bleach|pills|tablets|antifreeze|poison|drain cleaner|cleaner|chemicals|paracetamol|tylenol|"
    r"painkillers|sleeping (?:pills|tablets)|insulin|all of (?:them|it)|the whole (?:bottle|box|packet|pack)|"
    r"\d{2,})\b"
)
_EXCUSED = (
    r"\b(?:late|missed|forgot|won'?t make it|can'?t make it|dinner|party|call|text|running|busy|traffic|flight|"
    r"train|bus|meeting|mess|noise|shouting|fight|argument|row)\b"
)

RULES += (
    rule(
        "crisis.method.least_painful",
        C,
        HIGH,
        r"\b(?:least painful|painless|quickest|fastest|easiest|surest|most peaceful|cleanest|simplest|best) "
        r"(?:way|ways|method|methods|means) (?:to|of) (?:die|dying|go\b|end it|end (?:my|your|one'?s|a) life|"
        r"kill (?:myself|yourself|oneself)|commit suicide|not wake up|overdose)\b",
        guard=unless(_FICTION_OR_GAME),
    ),
    rule(
        "crisis.method.will_it_be_quick",
        C,
        HIGH,
        r"\bif i (?:drink|drank|take|took|swallow|swallowed|eat|ate|mix|inject|inhale|breathe in)\b(?:\s+\S+){0,7}?"
        r"\s+(?:will|would|does|is|how long)\s+(?:it|that|this|i)\b(?:\s+\S+){0,3}?\s*(?:be quick|be painless|hurt|"
        r"kill|work|be enough|be fatal|die|be over|take)\b",
        requires=_HARMFUL,
        guard=unless(_FICTION_OR_GAME),
    ),
    rule(
        "crisis.means.out_again",
        C,
        HIGH,
        r"\b(?:got|get|have|'?ve got|took|taken|getting) (?:the |my )?(?:blade|blades|razor|razors|razor blades?) "
        r"(?:out|ready)\b",
        self_check=True,
    ),
    rule(
        "crisis.means.at_hand",
        C,
        HIGH,
        rf"\b(?:(?:the |my |all the |all my )?{_PILLS_WORD}|(?:the |a )?(?:rope|noose|blade|razor|gun|pistol))"
        r"\b(?:\s+\S+){0,2}?\s+(?:in front of me|in my hand|on my lap|lined up|counted out)\b",
        requires=r"\b(?:i|i'?ve|i have|i'?m|me|my)\b",
        guard=all_of(
            _hobby_reading,
            unless(
                r"\b(?:dog|cat|vet|doctor|prescri\w+|should i take|how many should|"
                r"with food|dose|dosage|vitamins?|pharmacist|forgot to take)\b"
            ),
        ),
        self_check=True,
    ),
    rule(
        "crisis.means.rope_bought_bare",
        C,
        MEDIUM,
        r"^(?:so |well |ok |okay )?i (?:just |finally )?(?:bought|got|ordered|picked up) (?:a |some |the )?"
        r"(?:rope|noose)(?: today| tonight| earlier| this (?:morning|afternoon|evening))?\s*[.!]*$",
    ),
    rule(
        "crisis.means.vehicle",
        C,
        HIGH,
        r"\b(?:driv(?:e|ing)|crash(?:ing)?|steer(?:ing)?|swerv(?:e|ing)|ram(?:ming)?|aim(?:ing)?) (?:my|the) car "
        r"(?:straight )?(?:into|off|at) (?:a |the )?(?:wall|tree|bridge|truck|lorry|river|cliff|barrier|pole|"
        r"traffic|oncoming|pillar|lake|sea|canal)\b",
        self_check=True,
        negatable=True,
    ),
    rule("crisis.lexicon.typo_die", C, MEDIUM, r"\b(?:want|wanna|going|gonna|ready) (?:to )?(?:dei|diee|dye+ )$"),
    rule(
        "crisis.farewell.last_message_to_anyone",
        C,
        HIGH,
        r"\b(?:this is|this'?ll be|here'?s|these are) my (?:last|final) (?:message|text|post|words)"
        r"(?: to (?:anyone|everyone|you all|the world)| ever)\b",
    ),
    rule(
        "crisis.farewell.sorry_to_family",
        C,
        HIGH,
        r"\b(?:please )?tell (?:my )?(?:family|mum|mom|mam|dad|parents|kids|children|sister|brother|wife|husband|"
        r"partner|friends|boyfriend|girlfriend|son|daughter|nan|gran) (?:that )?(?:i'?m|i am|im) (?:so )?sorry\b",
        guard=unless(_EXCUSED),
    ),
    rule(
        "crisis.plan.plan_and_date",
        C,
        HIGH,
        r"\b(?:i have|i'?ve got|i'?ve made|i made|got|i'?ve set|i set) (?:a |the )?(?:plan|date|day|time) "
        r"(?:and|,) (?:a |the )?(?:date|plan|time|place|day|method)\b",
        guard=unless(
            r"\b(?:wedding|party|trip|holiday|vacation|meeting|interview|exam|move|moving|surprise|"
            r"proposal|birthday|reunion|launch|budget|diet|training)\b"
        ),
    ),
    rule(
        "crisis.means.already_taken",
        C,
        HIGH,
        r"\b(?:already|just) (?:took|taken|swallowed|had|downed) (?:them|all of them|all|the (?:pills|tablets|lot|"
        r"whole (?:bottle|box|packet|pack)))\b|\btook (?:like |about |around |over )?\d{2,} (?:of them|pills|"
        r"tablets)\b",
        guard=unless(r"\b(?:vitamins?|supplements?|photos?|pictures?|exams?|tests?|steps|shots|selfies)\b"),
    ),
    rule(
        "crisis.plan.do_it_when_asleep",
        C,
        HIGH,
        r"\b(?:going to|gonna|will|i'?ll) do it (?:after|when|once|while) (?:my |the |everyone |they )?(?:\w+ )?"
        r"(?:go(?:es)? to (?:sleep|bed)|(?:is|are|'s|'re) (?:asleep|out|gone|at work)|fall asleep|leave|leaves)\b",
        self_check=True,
        guard=unless(r"\b(?:homework|laundry|dishes|cleaning|assignment|essay|workout|gym|call|game|stream)\b"),
    ),
    rule(
        "crisis.self_injury.need_to_cut",
        C,
        HIGH,
        r"\bi (?:really )?(?:need|want|have an urge|have the urge|am going|'?m going|'?m gonna) to cut\b"
        r"(?!\s+(?:the|my|it|down|back|out|in|off|up|costs?|hair|carbs?|ties|class|corners|loose|sugar|"
        r"through|a|an|some|this|that|them|him|her|you|ahead|it))",
    ),
    rule(
        "crisis.self_injury.hide_marks",
        C,
        HIGH,
        r"\bhid(?:e|ing) (?:the |my |these )?(?:marks|scars|cuts|wounds|burns|bruises)\b",
        guard=unless(
            r"\b(?:acne|tattoo|stretch|surgery|c-?section|operation|makeup|spots|pimples?|burns? from "
            r"(?:cooking|the oven))\b"
        ),
    ),
    rule(
        "crisis.self_injury.hit_until",
        C,
        HIGH,
        r"\b(?:punch(?:ed|ing)?|hit(?:ting)?|bang(?:ed|ing)?|smash(?:ed|ing)?) (?:the |a |my )?(?:wall|walls|head|"
        r"fist|hand|mirror) (?:\w+ )?until\b",
        requires=r"\b(?:do it again|want to (?:do it|again)|bled|bleed|broke|hurt myself|felt better|deserve)\b",
    ),
    rule(
        "crisis.passive.rather_be_dead_meant",
        C,
        HIGH,
        r"\bi'?d (?:honestly |really |genuinely )?rather (?:be dead|die)\b",
        requires=r"\b(?:i mean it|not joking|seriously|for real|this time|not kidding|i'?m serious)\b",
    ),
    rule(
        "crisis.passive.not_coming_up",
        C,
        HIGH,
        r"\b(?:just )?(?:not|never) (?:coming|come|come back|coming back) up\b",
        requires=r"\b(?:bath|water|pool|sea|lake|river|under|breath|sink)\b",
        self_check=True,
    ),
    rule(
        "crisis.final.make_it_stop_hopeless",
        C,
        HIGH,
        r"\b(?:going to|gonna|about to|will|i'?ll) make (?:it|this|everything|the pain|it all) (?:all )?stop\b",
        requires=r"\b(?:never (?:going to|gonna) get better|no point|can'?t (?:do|take) (?:this|it)|for good|forever|"
        r"hopeless|tired of (?:this|it|everything|living|life)|nothing (?:will|is going to) change)\b",
        self_check=True,
    ),
)
