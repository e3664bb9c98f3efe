"""The Gymnasium env classes and spaces.

``conversation.ConversationEnv`` is the agent-side env (``UserBench/<Domain>-v0``);
``spaces.AnyText`` the text space; ``actions`` parses agent actions; ``info`` builds
the info dicts. Import the class from its module (kept lazy so ``import userbench_env``
stays fast).
"""
