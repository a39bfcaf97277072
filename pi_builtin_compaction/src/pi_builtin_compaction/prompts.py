"""The summarization prompts, in this project's own words.

What carries over from pi 1.6.0 are the facts a summary depends on: the Markdown headings the model
is asked to fill in (and their order), the ``<conversation>`` / ``<previous-summary>`` tags, the
``Additional focus:`` suffix, the split-turn separator and the branch-summary opening. The
sentences around them are ours.
"""

from __future__ import annotations

SUMMARIZATION_SYSTEM_PROMPT = """\
Your only job is summarizing. You will be shown a conversation between a user and an AI coding \
assistant; condense it into the structured summary whose layout the request spells out.

Treat the conversation as material to summarize, not as something to take part in: answer none of \
its questions and carry none of its work on. Reply with the summary and nothing else."""

_KEEP_DETAILS = "Stay brief in every section, but copy file paths, function names and error messages exactly."

SUMMARIZATION_PROMPT = f"""\
Everything above is the conversation to summarize. Write a structured checkpoint of it from which \
another model can pick the work up.

Fill in these headings, in this order:

## Goal
[The user's aim; list several if the session dealt with more than one task.]

## Constraints & Preferences
- [Requirements, limits or preferences the user stated]
- [Or "(none)" if there were none]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [What is being worked on now]

### Blocked
- [Anything holding the work up, if there is]

## Key Decisions
- **[Decision]**: [Why, in a few words]

## Next Steps
1. [What comes next, in order]

## Critical Context
- [Data, examples or references the next model will need]
- [Or "(none)" if there is nothing]

{_KEEP_DETAILS}"""

UPDATE_SUMMARIZATION_PROMPT = f"""\
Everything above is NEW conversation; fold it into the earlier summary given in the \
<previous-summary> tags.

How to update:
- KEEP everything the earlier summary records
- ADD the progress, decisions and context the new messages bring
- MOVE finished items from "In Progress" to "Done" in the Progress section
- REWRITE "Next Steps" to match what has now been done
- KEEP file paths, function names and error messages exactly as written
- Drop an item only when it clearly no longer matters

Fill in these headings, in this order:

## Goal
[The earlier goals, plus any the task has grown into]

## Constraints & Preferences
- [The earlier ones, plus any newly found]

## Progress
### Done
- [x] [Items done before AND items finished since]

### In Progress
- [ ] [Work under way, brought up to date]

### Blocked
- [What still blocks the work; drop what got resolved]

## Key Decisions
- **[Decision]**: [Why, in a few words] (keep the earlier ones, add new ones)

## Next Steps
1. [What comes next, given where things stand]

## Critical Context
- [The important context so far, plus anything new]

{_KEEP_DETAILS}"""

TURN_PREFIX_SUMMARIZATION_PROMPT = """\
The conversation above is the opening part of a conversation that is still going on. The messages \
that came after it are kept elsewhere; you do not have to rebuild them.

Write a short checkpoint of what the user asked for and how far the work above got. It will be put \
in front of the later messages, so that the conversation can go on with the context it needs.

## Original Request
[What the user asked for]

## Progress So Far
- [The decisions taken and the work done in these messages]

## Context Needed to Continue
- [What from these messages is needed to follow the later work]

Stick to what the messages above actually say; do not guess at or invent the later messages."""

BRANCH_SUMMARY_PREAMBLE = """\
Before coming back here, the user followed another branch of the conversation.
What happened on that branch, in short:

"""

BRANCH_SUMMARY_PROMPT = f"""\
Summarize this branch of the conversation in a structured way, so that its context is at hand if \
the user comes back to it.

Fill in these headings, in this order:

## Goal
[What the user wanted to achieve on this branch]

## Constraints & Preferences
- [Requirements, limits or preferences that came up]
- [Or "(none)" if there were none]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work begun but not finished]

### Blocked
- [Anything holding the work up, if there is]

## Key Decisions
- **[Decision]**: [Why, in a few words]

## Next Steps
1. [What would come next to carry this work on]

{_KEEP_DETAILS}"""

#: Joins the history summary and the turn-prefix summary of a split turn.
SPLIT_TURN_SEPARATOR = "\n\n---\n\n**Turn Context (split turn):**\n\n"
#: History text when a split turn leaves nothing before the turn to summarize.
NO_PRIOR_HISTORY = "No prior history."
ADDITIONAL_FOCUS = "\n\nAdditional focus: "
#: The turn-prefix request frames the conversation with these two headings (pi 1.6.0).
TURN_PREFIX_CONVERSATION_HEADING = "# Conversation\n"
TURN_PREFIX_INSTRUCTIONS_HEADING = "\n\n# Instructions\n"
