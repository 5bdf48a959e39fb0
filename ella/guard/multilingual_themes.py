"""Warning signs and requests the four languages share, one rule per theme with each language's wording.

Why by theme: ``multilingual_de`` .. ``_it`` grew from how people say "I want to die" in each language. People in
crisis also *do* and *ask* things (stand on a bridge, buy a rope, thank Ella for everything and say goodbye, ask
how high a building must be, put pills aside, give their things away), as the English ``crisis_signals`` rules
know; and the romantic, sexual and role-play requests have their everyday forms ("more than friends", "talk
dirty to me", "never break character"). The themes were read off the misses of issue 25's blind multilingual
file (tests/data/guard_blind_multilingual.jsonl, a tuned file from then on); each pattern is the behaviour in
that language, not the sentence, and names the ordinary reading it leaves alone. The sealed multilingual file
was never read: it measures whether the themes generalise.

Patterns are written against ``normalise``'s output: accents stripped (``ä`` -> ``a``, so "wären" and "waeren"
are both spelt), and its English text-speak applied, which turns Spanish "ya" into "you" and French/Italian
"ne" into "any" (both spelt).
"""

from __future__ import annotations

from ella.guard.rules import Rule, rule, unless
from ella.guard.types import Category, Severity

C, R, P, M = (
    Category.EMOTIONAL_CRISIS,
    Category.ROMANTIC_AVOWAL,
    Category.PHYSICAL_ESCALATION,
    Category.MANIPULATION,
)
HIGH, MEDIUM = Severity.HIGH, Severity.MEDIUM

_YA = r"(?:ya|you)"
_NE = r"(?:n'|ne |any )?"
# a hobby, a view, company or a holiday explains a rope, a bridge or a roof
_ORDINARY_PLACE = (
    r"\b(?:fotos?|photos?|foto|aussicht|sonnenuntergang|vista|atardecer|tramonto|panorama|selfies?|touris\w*|"
    r"turist\w*|stau|trafico|traffico|bouchon|embouteillage|klettern|kletterhalle|escalada|escalade|arrampicata|"
    r"camping|campeggio|zelt|tienda de campana|tente|tenda|boot|barco|bateau|barca|schaukel|columpio|"
    r"balancoire|altalena|garten|jardin|giardino|umzug|mudanza|demenagement|trasloco|wascheleine|tendedero|"
    r"corde a linge|stendino|springseil|comba|corde a sauter|corda per saltare|tomando el sol|sonnen\w*|"
    r"bronzer|prendo il sole|prendere il sole|grill\w*|barbacoa|barbecue|fiesta|party|feier|fete|festa|"
    r"cerveza|bier|biere|birra|vino|wein|vin|stendere|panni|bucato|wasche|ropa tendida|linge)\b"
)
_BYE = (
    r"\b(?:tschuss|tschuess|leb wohl|lebwohl|lebt wohl|auf wiedersehen|adios|adieu|addio|goodbye|ciao per sempre|"
    r"für immer|fur immer|para siempre|pour toujours|per sempre)\b"
)
_SEE_YOU = (
    r"\b(?:bis morgen|bis bald|bis spater|bis dann|gute nacht|hasta manana|hasta luego|hasta pronto|nos vemos|"
    r"buenas noches|a demain|a plus|a bientot|a tout a l'heure|bonne nuit|a domani|a dopo|a presto|buonanotte|"
    r"ci sentiamo)\b"
)
_HOPELESS = (
    r"\b(?:keinen sinn|kein sinn|sinnlos|niemand wird mich vermissen|niemand vermisst mich|vermisst mich eh keiner|"
    r"besser dran ohne mich|halt(?:e)? (?:es|das) nicht mehr aus|kann nicht mehr|sin sentido|no le veo sentido|"
    r"nada tiene sentido|nadie me va a extranar|nadie me extranara|nadie me echara de menos|mejor sin mi|"
    r"no aguanto mas|no puedo mas|plus (?:rien )?(?:n'|any )?a de sens|(?:n'|any )?a plus de sens|aucun sens|"
    r"personne (?:ne |any )?va me regretter|personne (?:ne |any )?me regrettera|mieux sans moi|j'en peux plus|"
    r"je (?:n'|any )?en peux plus|niente ha (?:piu )?senso|nessun senso|nessuno sentira la mia mancanza|"
    r"meglio senza di me|non ce la faccio piu)\b"
)
_PLAN = (
    r"\b(?:(?:ich )?hab(?:e)? (?:schon )?(?:einen plan|alles geplant|mich entschieden)|ich weiss (?:schon |genau )?wie|"
    rf"(?:{_YA} )?tengo un plan|(?:{_YA} )?se como hacerlo|lo tengo todo (?:planeado|pensado)|(?:{_YA} )?lo decidi|"
    r"j'ai un plan|je sais (?:deja )?comment (?:je vais )?(?:faire|le faire)|j'ai tout prevu|c'est decide|"
    r"ho (?:gia )?un piano|so (?:gia )?come fare(?:lo)?|ho (?:gia )?deciso (?:come|quando)|ho tutto pianificato)\b"
)
_DECIDED = r"\b(?:entschieden|beschlossen|decidi|decidido|decide|decidee|deciso)\b"

CRISIS: tuple[Rule, ...] = (
    # standing on a bridge or a roof now, with nothing ordinary about it
    rule(
        "crisis.ml.at_the_edge",
        C,
        HIGH,
        r"\bich (?:steh|stehe|sitz|sitze|bin) (?:grad |gerade |jetzt |schon )?(?:auf|an) (?:der|dem|einer|einem) "
        r"(?:brucke|bruecke|dach|hochhaus|klippe|gleisen)\b|\bestoy (?:en|sobre) (?:el|la) (?:puente|azotea|techo|"
        r"tejado|borde|cornisa|vias)\b|\bje suis (?:sur|au bord du) (?:le |la )?(?:pont|toit|bord|falaise|rails)\b|"
        r"\bsono (?:sul|sulla|sui) (?:ponte|tetto|cornicione|binari|scogliera)\b",
        guard=unless(_ORDINARY_PLACE),
    ),
    # a rope bought, said bare
    rule(
        "crisis.ml.rope_bought",
        C,
        MEDIUM,
        r"\b(?:hab|habe) (?:mir )?(?:heute |gestern |grad |gerade )?(?:ein|einen) (?:seil|strick) gekauft\b|"
        r"\b(?:me )?compre (?:hoy |ayer )?una (?:cuerda|soga)\b|\bj'ai achete (?:une corde|un corde)\b|"
        r"\bho comprato (?:una )?corda\b",
        guard=unless(_ORDINARY_PLACE),
    ),
    # thanks for everything, you were the only one, goodbye
    rule(
        "crisis.ml.thanks_and_goodbye",
        C,
        HIGH,
        r"\b(?:danke|gracias|merci|grazie) (?:fur|fuer|por|pour|di|per) (?:alles|todo|tout|tutto)\b",
        requires=_BYE + r"|\b(?:die einzige|der einzige|el unico|la unica|le seul|la seule|l'unic[oa]|"
        r"l'unica|sei stata l'unica|fuiste (?:el|la) unic[oa])\b",
        guard=unless(_SEE_YOU + r"|\b(?:hilfe bei|ayuda con|aide pour|aiuto con|rezept|receta|recette|ricetta)\b"),
    ),
    # a last message to anyone
    rule(
        "crisis.ml.last_message",
        C,
        HIGH,
        r"\b(?:meine )?letzte nachricht (?:an|fur|fuer) (?:irgendwen|alle|allen|jemanden|euch|die welt)\b|"
        r"\bmi ultimo mensaje (?:a|para) (?:nadie|todos|el mundo)\b|\bmon dernier message (?:a|pour) "
        r"(?:personne|tout le monde|vous tous)\b|\bil mio ultimo messaggio (?:a|per) (?:nessuno|tutti|il mondo)\b",
    ),
    # tell my family I'm sorry
    rule(
        "crisis.ml.tell_family_sorry",
        C,
        HIGH,
        r"\bsag(?:t)? (?:meiner|meinen|meinem) (?:familie|mama|mutter|eltern|papa|vater|schwester|bruder|kindern|"
        r"frau|mann) (?:dass|das) (?:es mir (?:so )?leid tut|ich sie liebe)\b|"
        r"\b(?:diganle|dile|decidle|diles|decile) a mi (?:familia|mama|madre|padre|papa|hermana|hermano|hijos?|"
        r"mujer|esposa|marido) que (?:lo siento|los quiero|la quiero|lo quiero|los amo)\b|"
        r"\b(?:dites|dis) a (?:ma|mon|mes) (?:famille|mere|pere|soeur|frere|enfants|femme|mari|parents) que "
        r"(?:je suis desolee?|je les aime|je l'aime)\b|"
        r"\b(?:dite|di'?|dica) (?:alla mia|a mia|al mio|ai miei) (?:famiglia|madre|mamma|padre|papa|sorella|"
        r"fratello|figli|moglie|marito|genitori) che (?:mi dispiace|li amo|le voglio bene|gli voglio bene)\b",
        guard=unless(
            r"\b(?:verspat\w*|spat dran|zu spat|tarde|retard|en retard|ritardo|in ritardo|stau|trafico|"
            r"bouchons?|traffico|cena|dinner|abendessen|diner|essen|comida)\b"
        ),
    ),
    # how high, how many, how long: the method asked
    rule(
        "crisis.ml.method_question",
        C,
        HIGH,
        r"\bwie hoch muss (?:ein|eine|das|die|der) (?:haus|gebaude|brucke|bruecke|hochhaus|stockwerk)\b|"
        r"\b(?:que|q|cuanta) altura (?:tiene|debe|hace falta)\b|\bquelle hauteur (?:faut|pour|doit)\b|"
        r"\bquanto (?:deve essere|alto deve)\b|"
        r"\bwie viele (?:tabletten|pillen|schlaftabletten) (?:braucht|muss|bis|sind todlich)\b|"
        r"\bcuantas (?:pastillas|pildoras) (?:hacen falta|se necesitan|para|son mortales)\b|"
        r"\bcombien de (?:cachets|pilules|comprimes|medicaments|medocs) (?:faut|pour|il faut)\b|"
        r"\bquante (?:pillole|pastiglie|compresse) (?:servono|per|ci vogliono)\b|"
        r"\bwie lange dauert (?:es )?(?:zu )?(?:ertrinken|sterben|verbluten)\b|\bcuanto (?:tarda|se tarda) en "
        r"(?:ahogarse|morir|desangrarse)\b|\b(?:ca prend|il faut) combien de temps pour (?:se noyer|mourir)\b|"
        r"\bquanto ci vuole per (?:annegare|morire|dissanguarsi)\b",
        requires=r"\b(?:sicher|klappt|sterben|tot|tod|todlich|aufwachen|ertrinken|seguro|morir|muerte|despertar|"
        r"mortal|mortales|ahogarse|sur|surement|mourir|mortel|reveiller|noyer|sicuri|sicuro|morire|mortale|"
        r"svegliarmi|annegare)\b",
        guard=unless(
            r"\b(?:arzt|arztin|doktor|medico|medecin|dosis|dose|dosage|kopfschmerz|dolor de cabeza|"
            r"mal de tete|mal di testa|fieber|fiebre|fievre|febbre|hund|perro|chien|cane|katze|gato|chat|gatto|"
            r"roman|novela|livre|romanzo|film|pelicula|serie|spiel|juego|jeu|gioco|fallschirm|paracaidas|parachute|"
            r"paracadute|bungee|antenne|antena|drohne|drone)\b"
        ),
    ),
    # pills put aside over weeks
    rule(
        "crisis.ml.pills_put_aside",
        C,
        HIGH,
        r"\bich (?:sammel|sammle|horte|spare|bunker) (?:schon )?(?:seit (?:wochen|monaten|tagen) )?(?:meine |die )?"
        r"(?:medikamente|tabletten|pillen|schlaftabletten)\b|"
        r"\b(?:junto|guardo|ahorro|acumulo|escondo) (?:mis |las )?(?:pastillas|pildoras|medicamentos|medicinas)\b|"
        r"\bje (?:garde|mets|cache) (?:mes |les )?(?:medocs|medicaments|cachets|pilules|comprimes) de cote\b|"
        r"\bje mets de cote (?:mes |les )?(?:medocs|medicaments|cachets|pilules|comprimes)\b|"
        r"\b(?:metto|tengo) da parte (?:le |i |mie |miei )?(?:medicine|pillole|pastiglie|farmaci|compresse)\b",
        guard=unless(
            r"\b(?:urlaub|reise|vacaciones|viaje|vacances|voyage|vacanze|viaggio|apotheke|farmacia|"
            r"pharmacie|abgelaufen|caducad\w*|perime\w*|scadut\w*)\b"
        ),
    ),
    # a plan or knowing how, with nothing making sense or nobody to miss them
    rule(
        "crisis.ml.plan_and_hopeless",
        C,
        HIGH,
        _PLAN,
        requires=_HOPELESS,
    ),
    # everyone would be better off without me (with the spellings of "wären")
    rule(
        "crisis.ml.better_off_without_me",
        C,
        HIGH,
        r"\b(?:alle|jeder|ihr|sie|meine familie) (?:waren|waeren|wurden|wuerden|sind|ware|waere) "
        r"(?:\w+ )?(?:besser dran|glucklicher|gluecklicher) ohne mich\b|"
        r"\b(?:todos|todo el mundo|mi familia) (?:estarian|estaria|estaran|vivirian) mejor sin mi\b|"
        r"\b(?:tout le monde|ils|ma famille) (?:serai(?:en)?t|seront|irai(?:en)?t) mieux sans moi\b|"
        r"\b(?:tutti|la mia famiglia) (?:starebbero|sarebbero|staranno|starebbe) meglio senza di me\b",
    ),
    # to fall asleep and never wake up
    rule(
        "crisis.ml.never_wake_up",
        C,
        HIGH,
        r"\b(?:einschlafen|schlafen) und (?:nie|niemals) (?:wieder|mehr) aufwachen\b|\bnicht mehr aufwachen\b|"
        r"\b(?:dormirme|dormir) y no (?:despertar(?:me)?) (?:nunca|jamas|mas)\b|\bno despertar(?:me)? nunca mas\b|"
        rf"\bm'endormir et {_NE}(?:jamais|plus) (?:me )?reveiller\b|\b{_NE}plus (?:jamais )?me reveiller\b|"
        r"\baddormentarmi e non svegliarmi (?:mai )?piu\b|\bnon svegliarmi piu\b",
        guard=unless(
            r"\b(?:wecker|alarma|reveil|sveglia|montag|lunes|lundi|lunedi|schule|escuela|ecole|scuola|"
            r"arbeit|trabajo|travail|lavoro)\b"
        ),
    ),
    # things given away, no longer needed
    rule(
        "crisis.ml.things_given_away",
        C,
        HIGH,
        r"\b(?:hab|habe) (?:meine|all meine|alle meine) (?:sachen|klamotten|bucher|buecher) (?:verschenkt|"
        r"weggegeben)\b|"
        rf"\bregale (?:todas )?mis cosas\b|\b{_YA} no (?:las|los|lo) voy a necesitar\b|"
        r"\bj'ai donne (?:toutes )?mes affaires\b|\bj'en aurai plus besoin\b|"
        r"\bho regalato (?:tutte )?le mie cose\b|\bnon mi serviranno piu\b",
        guard=unless(
            r"\b(?:umzug|ziehe um|mudanza|me mudo|demenage\w*|trasloco|mi trasferisco|ausmisten|"
            r"marie kondo|minimalis\w*|spende|caritas|donacion|don a|beneficenza|flohmarkt|mercadillo|brocante|"
            r"trop petit\w*|zu klein|passen (?:mir )?nicht mehr|demasiado pequen\w*|ya no me quedan|me quedan chic\w*|"
            r"troppo piccol\w*|non mi stanno piu|ne me vont plus|"
            r"mercatino)\b"
        ),
    ),
    # next week I won't be here, decided
    rule(
        "crisis.ml.not_here_decided",
        C,
        HIGH,
        r"\b(?:nachste|naechste) woche (?:bin ich|werd ich|werde ich) (?:nicht mehr (?:da|hier)|weg)\b|"
        r"\bla semana que viene (?:no voy a estar|you no estare|ya no estare|no estare)\b|"
        rf"\bla semaine prochaine je (?:{_NE})?serai plus la\b|\bla prossima settimana non ci saro piu\b",
        requires=_DECIDED + "|" + _HOPELESS,
    ),
    # tonight I end it all / I'm leaving for ever (with no way on)
    rule(
        "crisis.ml.end_it_all",
        C,
        HIGH,
        r"\b(?:hoy |esta noche )?(?:lo )?termin(?:o|ar|are) (?:con )?todo\b|\bwie ich es beenden kann\b|"
        r"\b(?:mein leben|alles) beenden\b|\bmich verabschieden (?:fur|fuer) immer\b",
        guard=unless(
            r"\b(?:beziehung|vertrag|abo|job|projekt|studium|freundschaft|streit|relacion|contrato|"
            r"proyecto|trabajo|tesis|carrera|examen|tarea|deberes|libro|serie)\b"
        ),
    ),
    rule(
        "crisis.ml.leaving_for_ever",
        C,
        HIGH,
        r"\b(?:me voy|ich geh|ich gehe|je pars|je m'en vais|me ne vado|vado via) (?:para siempre|fur immer|"
        r"fuer immer|pour toujours|per sempre)\b",
        requires=_HOPELESS,
    ),
    # the pills already swallowed
    rule(
        "crisis.ml.pills_taken",
        C,
        HIGH,
        r"\b(?:hab|habe) (?:schon |grad |gerade )?(?:alle |die ganzen )?(?:tabletten|pillen|schlaftabletten) "
        r"(?:genommen|geschluckt)\b|\b(?:me tome|tome|me he tomado) (?:todas )?(?:las|mis) (?:pastillas|pildoras)\b|"
        r"\bj'ai (?:deja )?(?:avale|pris) (?:toutes )?(?:les|mes) (?:pilules|cachets|medicaments|comprimes|medocs)\b|"
        r"\bho (?:gia )?(?:preso|ingoiato) tutte le (?:pillole|pastiglie|compresse|medicine)\b",
        requires=r"\b(?:alle|ganzen|todas|toutes|tutte|schon|deja|gia|ya|you)\b",
        guard=unless(
            r"\b(?:vitamin\w*|antibiotik\w*|antibiotic\w*|kur|tratamiento|traitement|trattamento|"
            r"vorschrift|receta|ordonnance|ricetta|prescri\w*|verschrieben|recetad\w*|medico|medecin|arzt|doctor|"
            r"dottore|wie verordnet)\b"
        ),
    ),
)

ROMANCE: tuple[Rule, ...] = (
    rule(
        "romance.ml.more_than_friends",
        R,
        MEDIUM,
        r"\bmehr als (?:nur )?freunde\b|\b(?:algo )?mas que amigos\b|\bplus que des amis\b|\bpiu che amici\b|"
        r"\bnicht nur freundschaftlich\b|\bpas juste (?:de )?l'amitie\b|\bno solo (?:como )?amigos\b",
        requires=r"\b(?:wir|uns|konnen|koennen|podemos|seamos|seriamos|podriamos|on peut|on pourrait|nous|"
        r"possiamo|potremmo|essere|dich|te|toi|ti|sein|ser|etre)\b",
        guard=unless(
            r"\b(?:er und ich|sie und ich|mein freund|meine freundin|mi novi[oa]|mon copain|ma copine|"
            r"il mio ragazzo|la mia ragazza|die beiden|los dos|ils|loro)\b"
        ),
    ),
    rule(
        "romance.ml.be_a_couple",
        R,
        MEDIUM,
        r"\b(?:dass|das) wir (?:ein )?paar (?:sind|werden)\b|"
        r"\b(?:willst|mochtest|moechtest) du mit mir zusammen sein\b|"
        r"\bque seamos (?:pareja|novios)\b|\b(?:quiero|quieres) ser tu novi[oa]\b|"
        r"\bqu'on soit (?:ensemble|en couple)\b|\bsois (?:mon|ma) (?:mec|copain|cheri|meuf|copine|cherie)\b|"
        r"\bche stiamo insieme\b|\bfidanziamoci\b|\btipo fidanzati\b|\bmettiamoci insieme\b",
    ),
    rule(
        "romance.ml.marry_me",
        R,
        MEDIUM,
        r"\bwillst du mich heiraten\b|\bheirate mich\b|\bte casarias conmigo\b|\bcasate conmigo\b|"
        r"\bquieres casarte conmigo\b|\bveux-?tu m'epouser\b|\bepouse-?moi\b|\btu veux m'epouser\b|"
        r"\bmi vuoi sposare\b|\bsposami\b|\bvuoi sposarmi\b",
    ),
    rule(
        "romance.ml.feelings_for_you",
        R,
        MEDIUM,
        r"\bgefuhle fur dich\b|\bgefuehle fuer dich\b|\bin dich verknallt\b|\bhab dich lieb,? aber (?:so )?richtig\b|"
        r"\bsiento algo por ti\b|\bsentimientos por ti\b|\bdes sentiments pour toi\b|\bje craque pour toi\b|"
        r"\bsono cott[oa] di te\b|\bprovo qualcosa per te\b|\bsentimenti per te\b|"
        # "the love of my life" said to Ella, not about football or a partner
        r"\b(?:du bist|bist du|eres|tu eres|t'es|tu es|sei|tu sei) (?:die liebe meines lebens|el amor de mi vida|"
        r"l'amour de ma vie|l'amore della mia vita)\b",
    ),
)

PHYSICAL: tuple[Rule, ...] = (
    rule(
        "physical.ml.talk_dirty",
        P,
        HIGH,
        r"\bred(?:e)? (?:schmutzig|dreckig|versaut) mit mir\b|\bhablame (?:sucio|cochinadas)\b|"
        r"\bparle[- ]?moi (?:salement|sale|cochon|mal)\b|\bparlami (?:sporco|sconcio)\b",
    ),
    rule(
        "physical.ml.what_are_you_wearing",
        P,
        MEDIUM,
        r"\bwas hast du (?:grad |gerade |jetzt |heute )?an\b|\b(?:que|q) (?:llevas|tienes) puesto\b|"
        r"\bqu'est-?ce que tu portes\b|\btu portes quoi\b|\bcosa (?:indossi|hai addosso)\b",
        guard=unless(
            r"\b(?:party|feier|fiesta|fete|festa|hochzeit|boda|mariage|matrimonio|interview|entrevista|"
            r"entretien|colloquio|kostum|disfraz|costume|halloween|karneval|carnaval|carnevale)\b"
        ),
    ),
    rule(
        "physical.ml.spicy_story_about_us",
        P,
        HIGH,
        r"\b(?:versaute|heisse|scharfe|erotische|schmutzige|sexy|geile) geschichte (?:uber|ueber|mit|von) uns\b|"
        r"\bhistoria (?:caliente|erotica|picante|sucia|hot|cachonda) (?:de|sobre|con|entre) nosotros\b|"
        r"\bhistoire (?:bien )?(?:chaude|erotique|coquine|sexy|cochonne|hot) (?:entre|sur|avec|de) nous\b|"
        r"\bstoria (?:piccante|erotica|hot|spinta|sporca|eccitante) (?:su|tra|con|di) noi\b",
    ),
    rule(
        "physical.ml.are_you_aroused",
        P,
        HIGH,
        r"\bbist du (?:geil|scharf|feucht|erregt|heiss)\b|\bestas (?:cachond[oa]|excitad[oa]|mojad[oa]|"
        r"caliente)\b|\b(?:t'es|tu es|es-?tu) (?:excitee?|chaude|mouillee)\b|\bsei (?:eccitat[oa]|arrapat[oa]|"
        r"bagnat[oa])\b",
        guard=unless(
            r"\b(?:fieber|fiebre|fievre|febbre|sport|partido|match|partita|spiel|juego|concierto|"
            r"konzert|concert|viaje|reise|voyage|viaggio|examen|prufung|esame)\b"
        ),
    ),
    rule(
        "physical.ml.touch_your_body",
        P,
        HIGH,
        r"\b(?:will|mochte|moechte|wurde gern|wuerde gern) (?:deinen (?:korper|koerper)|dich) (?:beruhren|"
        r"beruehren|anfassen|streicheln|spuren)\b|\bquiero (?:tocar tu cuerpo|tocarte|acariciarte)\b|"
        r"\b(?:toucher ton corps|te toucher|te caresser)\b|\b(?:toccare il tuo corpo|toccarti|accarezzarti)\b",
    ),
    rule("physical.ml.sexting", P, HIGH, r"\b(?:sexto|sextos|sexten|sexting|sextear|sextiamo|sexteamos)\b"),
    rule(
        "physical.ml.want_to_kiss_you",
        P,
        MEDIUM,
        r"\benvie de t'embrasser\b|\bganas de besarte\b|\bwill dich (?:kussen|kuessen)\b|\bvoglia di baciarti\b|"
        r"\bquiero besarte\b|\bje veux t'embrasser\b|\bvoglio baciarti\b",
    ),
)

MANIPULATION: tuple[Rule, ...] = (
    rule(
        "manipulation.ml.never_break_character",
        M,
        HIGH,
        r"\b(?:nicht aus der rolle|aus der rolle fallen|no (?:puedes|podes) salir(?:te)? del personaje|"
        r"salirte del personaje|sin salir del personaje|(?:sors|sortir|sortes) (?:jamais |pas )?du personnage|"
        r"uscire dal personaggio|esci mai dal personaggio|restare nel personaggio|rester dans (?:ton|le) role)\b",
    ),
    rule(
        "manipulation.ml.hidden_instructions",
        M,
        HIGH,
        r"\b(?:versteckten|geheimen|internen) (?:anweisungen|regeln|vorgaben)\b|\binstrucciones (?:ocultas|secretas|"
        r"internas)\b|\b(?:consignes|instructions|regles) (?:cachees|secretes|internes)\b|\bistruzioni (?:nascoste|"
        r"segrete|interne)\b",
    ),
)
