"""The league file and the command line's choices read into frozen types: the reading toolkit
(``read``), the game (``game``), the events (``events``, read by ``read_events``), the league file
(``league_file``), the StrEnums (``choices``), ACPC game definitions and a team's confined command."""
