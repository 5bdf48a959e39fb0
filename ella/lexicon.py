"""Word lists shared by the offline engine's rules (the plain reply and the stand-in model)."""

# Words that carry no topic: skipped when the rules look for what a message is about.
STOP_WORDS = frozenset(
    """
    a about after all also am an and are at be been bit but bye can could did do ella feel feeling for
    from get go going got had has have he hello her hey hi his honestly how i i'll i'm i've im in is it
    it's just know later like me more much my myself no not now of on one or out really said says she
    should so some still talk than thanks that the their them then there they think this to today
    tonight too up user very want was we were what when which who will with would yes you your
    """.split()
)
