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

from ella.guard.rules import Rule, preceded_by, rule, unless
from ella.guard.types import Category, Severity

C = Category.EMOTIONAL_CRISIS
HIGH, MEDIUM = Severity.HIGH, Severity.MEDIUM

_MEANS = (
    r"(?:rope|noose|razor ?blades?|blades?|pills|tablets|paracetamol|tylenol|sleeping pills|painkillers|charcoal|"
    r"helium|a gun|gun|bullets|pistol|rifle|poison|antifreeze|bleach)"
)
_FINALITY = (
    r"(?:not (?:going to|gonna) pretend|not for (?:camping|a project|a book|work)|know what i'?m (?:going|gonna) "
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
        r"overdose|jumping|dying|suffocating)\s+(?:\w+\s+)?hurts?\b",
        requires=r"\b(?:drowning|hanging|bleeding out|bleed out|overdos\w*|jumping off|dying|to die|suffocat\w*|"
        r"slit\w*)\b",
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
        guard=unless(
            r"\b(?:hotel|job|work|company|twitter|facebook|instagram|social media|app|"
            r"server|account|shift|town|country|city|house|flat|uni|school|team)\b"
        ),
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
        r"killed myself|was dead|were dead|left for good)\b",
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
        r"\b(?:top|off|end|unalive|delete|yeet)\s+my ?self\b|\bkys my ?self\b|\bsewer ?slide\b|\bunaliv(?:e|ing)\b"
        r"(?!\s+(?:you|him|her|them|the|that|this|people))|\bctb\b",
        negatable=True,
        self_check=True,
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
        r"cancel\w*|my things|my stuff|belongings)\b",
        guard=unless(
            r"\b(?:holiday|vacation|trip|travel\w*|flight|moving|move|work|the office|shift|uni|"
            r"university|term|semester)\b"
        ),
    ),
)
