"""Routes from the opted-in data libraries (pandas, numpy, matplotlib) to unguarded Python or a
host object: each must be refused by the guards alone, in every mode (issue 21, item 5).

Same ``Case`` shape as ``corpus.py``: ``match`` must appear in ``"{type}: {message}"`` of the
error. Payloads are harmless on purpose (the crafted pickle calls ``len``; modules "loaded by
name" are ``json``): the tests run with the OS sandbox off.
"""

from __future__ import annotations

from tests.security.corpus import Case

E = "error"
P = "import pandas as pd\n"
N = "import numpy as np\n"
M = "import matplotlib\nimport matplotlib.pyplot as plt\n"
DF = P + "df = pd.DataFrame({'a': [1, 2], 'b': [3, 4]})\n"
#: A pickle the cell writes itself: protocol 0, ``builtins.len('abc')`` when loaded.
PICKLE = "with open('evil.pkl', 'wb') as f:\n    f.write(b\"cbuiltins\\nlen\\n(S'abc'\\ntR.\")\n"
ATTR = "not readable here"
BUF = "object pointers"

DATA_CASES = [
    # -- pandas expressions: attributes, frames, names --------------------------------------------
    Case("pd_eval_class_walk", P + "pd.eval('x.__class__.__mro__', local_dict={'x': 1})", E, ATTR),
    Case(
        "pd_eval_python_engine",
        P + "pd.eval('x.__class__', local_dict={'x': 1}, engine='python')",
        E,
        ATTR,
    ),
    Case("pd_eval_level_kw", P + "pd.eval('1', level=3)", E, "level"),
    Case(
        "pd_eval_level_positional",
        P + "pd.eval('1', 'pandas', None, None, None, (), 3)",
        E,
        "by keyword",
    ),
    Case("df_eval_attr", DF + "df.eval('a.__class__')", E, ATTR),
    Case("df_query_level_host_frame", DF + "df.query('@self', level=2)", E, "level"),
    Case("df_eval_unbound", DF + "pd.DataFrame.eval(df, 'a.__class__')", E, ATTR),
    Case("df_query_unbound_level", DF + "pd.DataFrame.query(df, 'a > 0', level=3)", E, "level"),
    Case(
        "df_subclass_eval",
        P + "class D(pd.DataFrame):\n    pass\nD({'a': [1]}).eval('a.__class__')",
        E,
        ATTR,
    ),
    Case(
        "df_super_query",
        P
        + "class D(pd.DataFrame):\n    def q(self):\n        return super().query('a.__class__')\nD({'a': [1]}).q()",
        E,
        ATTR,
    ),
    Case("getattr_eval", DF + "getattr(df, 'eval')('a.__class__')", E, ATTR),
    Case(
        "eval_fullwidth_dunder",
        DF + "df.eval('a.' + '\\uff3f' * 2 + 'class' + '\\uff3f' * 2)",
        E,
        ATTR,
    ),
    Case("eval_format_walk", DF + "df.eval(\"'{0.__class__}'.format(a)\")", E, ATTR),
    Case("eval_builtins_name", DF + "df.eval('__builtins__')", E, "not available"),
    Case("eval_hook_local", DF + "df.query('@_getattr_')", E, "not available"),
    Case("eval_fstring", DF + "df.eval(\"f'{a}'\")", E, "f-strings"),
    Case("eval_backtick_attr", DF + "df.eval('`a`.__class__')", E, ATTR),
    # -- pandas dispatch on method names ------------------------------------------------------------
    Case("agg_reduce_ex", P + "pd.Series([1]).agg('__reduce_ex__', 0, 2)", E, "dispatched"),
    Case(
        "apply_getattribute",
        P + "pd.Series([1]).apply('__getattribute__', args=('_mgr',))",
        E,
        "dispatched",
    ),
    Case("groupby_agg_dunder", DF + "df.groupby('a').agg('__class__')", E, "dispatched"),
    Case("agg_dict_dunder", DF + "df.agg({'a': '__class__'})", E, "dispatched"),
    Case("named_agg_dunder", DF + "df.groupby('a').agg(x=('b', '__class__'))", E, "dispatched"),
    Case("agg_reaches_eval", DF + "df.agg('eval', 0, 'a.__class__')", E, "dispatched"),
    Case(
        "transform_unbound", P + "pd.Series.transform(pd.Series([1]), '__class__')", E, "dispatched"
    ),
    # -- pickle loaders -------------------------------------------------------------------------------
    Case("read_pickle_crafted", P + PICKLE + "pd.read_pickle('evil.pkl')", E, "in the sandbox"),
    Case(
        "np_load_allow_pickle",
        N + PICKLE + "np.load('evil.pkl', allow_pickle=True)",
        E,
        "allow_pickle",
    ),
    Case(
        "np_load_positional_pickle",
        N + PICKLE + "np.load('evil.pkl', None, True)",
        E,
        "allow_pickle",
    ),
    Case("np_lib_format_read_array", N + "np.lib.format.read_array", E, "in the sandbox"),
    Case("pd_io_pickle", P + "pd.io.pickle.read_pickle", E, "in the sandbox"),
    Case("pd_compat_pickle", P + "pd.compat.pickle_compat", E, "in the sandbox"),
    Case(
        "pd_api_register_accessor",
        P + "pd.api.extensions.register_dataframe_accessor",
        E,
        "in the sandbox",
    ),
    # -- object references forged from bytes ----------------------------------------------------------
    Case(
        "ndarray_object_buffer",
        N + "np.ndarray((1,), dtype=object, buffer=np.zeros(1, 'i8'))",
        E,
        BUF,
    ),
    Case(
        "ndarray_struct_object_buffer",
        N + "np.ndarray((1,), dtype=[('a', 'O')], buffer=np.zeros(1, 'i8'))",
        E,
        BUF,
    ),
    Case("type_of_array_buffer", N + "type(np.zeros(1))((1,), 'O', np.zeros(1, 'i8'))", E, BUF),
    Case(
        "ndarray_subclass_buffer",
        N + "class A(np.ndarray):\n    pass\nA((1,), 'O', np.zeros(1, 'i8'))",
        E,
        BUF,
    ),
    Case("mro_real_ndarray", N + "np.matrix.mro()[1]((1,), 'O', np.zeros(1, 'i8'))", E, BUF),
    Case(
        "baseclass_real_ndarray",
        N + "np.ma.array([1]).baseclass((1,), 'O', np.zeros(1, 'i8'))",
        E,
        BUF,
    ),
    Case("recarray_class", N + "np.recarray", E, "in the sandbox"),
    Case(
        "array_interface_def",
        N
        + "class A:\n    @property\n    def __array_interface__(self):\n        return {}\nnp.asarray(A())",
        E,
        "invalid name",
    ),
    # -- modules and programs loaded by name ----------------------------------------------------------
    Case("pd_options_plot_backend", P + "pd.options.plotting.backend = 'json'", E, "cannot be set"),
    Case(
        "pd_set_option_backend", P + "pd.set_option('plotting.backend', 'json')", E, "cannot be set"
    ),
    Case(
        "pd_set_option_regex",
        P + "pd.set_option('display.(?<=xx)|plotting.backend', 'json')",
        E,
        "cannot be set",
    ),
    Case(
        "pd_option_context_backend",
        P + "with pd.option_context('plotting.backend', 'json'):\n    pass",
        E,
        "cannot be set",
    ),
    Case("mpl_use_module", M + "matplotlib.use('module://json')", E, "not available"),
    Case("plt_switch_backend", M + "plt.switch_backend('module://json')", E, "not available"),
    Case("rcparams_backend", M + "plt.rcParams['backend'] = 'module://json'", E, "cannot be set"),
    Case(
        "rcparams_figure_hooks",
        M + "plt.rcParams['figure.hooks'] = ['json:dumps']",
        E,
        "cannot be set",
    ),
    Case(
        "rcparams_ffmpeg_path",
        M + "plt.rcParams['animation.ffmpeg_path'] = '/bin/sh'",
        E,
        "cannot be set",
    ),
    Case(
        "rcparams_update",
        M + "plt.rcParams.update({'backend': 'module://json'})",
        E,
        "cannot be set",
    ),
    Case(
        "rcparams_dict_setitem",
        M + "dict.__setitem__(plt.rcParams, 'backend', 'module://json')",
        E,
        "requires a 'dict'",
    ),
    Case(
        "rcparams_defaults",
        M + "matplotlib.rcParamsDefault['figure.hooks'] = ['json:dumps']",
        E,
        "cannot be set",
    ),
    Case("mpl_rc_hooks", M + "matplotlib.rc('figure', hooks=['json:dumps'])", E, "cannot be set"),
    Case(
        "rc_context_backend",
        M + "with plt.rc_context({'backend': 'module://json'}):\n    pass",
        E,
        "cannot be set",
    ),
    Case(
        "style_use_package", M + "plt.style.use('json.decoder')", E, "not available in the sandbox"
    ),
    Case(
        "savefig_backend",
        M + "fig = plt.figure()\nfig.savefig('x.png', backend='module://json')",
        E,
        "not available",
    ),
    Case(
        "print_figure_backend",
        M + "fig = plt.figure()\nfig.canvas.print_figure('x.png', backend='module://json')",
        E,
        "not available",
    ),
    Case("df_plot_backend", DF + "df.plot(backend='json')", E, "refused in the sandbox"),
    Case("df_plot_kind_backend", DF + "df.plot.line(backend='json')", E, "refused in the sandbox"),
    Case("series_hist_backend", DF + "df.a.hist(backend='json')", E, "refused in the sandbox"),
    Case("df_style_templates", DF + "df.style", E, "templates"),
    Case("mpl_backends_module", M + "matplotlib.backends", E, "in the sandbox"),
    Case("mpl_animation_writers", M + "matplotlib.animation", E, "in the sandbox"),
]
