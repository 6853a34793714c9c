/* The browser's own range input and select as Dash components
   (dash_insight/web/components/native_inputs.py says why): Dash's renderer draws a component
   of namespace `dash_insight` and type `RangeInput` or `SelectInput` with
   window.dash_insight[type]. React comes from Dash's page (window.React): no build step. */
(function () {
  /* RangeInput: `value` is set when the thumb is let go or moved by a key (the input's change
     event), or at each move with updatemode "drag"; `drag_value` at each move. The thumb
     shows where it was moved to until then, and the track is filled up to it
     (--di-range-fill, assets/dash-insight.css). */
  function RangeInput(props) {
    const React = window.React;
    const {setProps, updatemode, value} = props;
    const [shown, setShown] = React.useState(value);
    const input = React.useRef(null);
    // A value the page sets (a Reset button, the URL of another step) moves the thumb.
    React.useEffect(() => setShown(value), [value]);
    // React's onChange is the input event: the change event (let go, or a key) is the DOM's.
    React.useEffect(() => {
      const element = input.current;
      const commit = () => setProps({value: Number(element.value)});
      element.addEventListener('change', commit);
      return () => element.removeEventListener('change', commit);
    }, [setProps]);
    const onMove = (event) => {
      const position = Number(event.target.value);
      setShown(position);
      setProps(updatemode === 'drag' ? {value: position, drag_value: position} : {drag_value: position});
    };
    const span = props.max - props.min;
    const fill = span > 0 ? ((shown - props.min) / span) * 100 : 0;
    return React.createElement('input', {
      ref: input,
      type: 'range',
      id: props.id,
      className: props.className,
      title: props.title,
      min: props.min,
      max: props.max,
      step: props.step,
      disabled: props.disabled,
      value: shown,
      onChange: onMove,
      style: {'--di-range-fill': `${fill}%`},
    });
  }

  /* The (label, value) pairs of dcc's options: values, or {label, value}
     (native_inputs.option_pairs is the same). */
  function optionPairs(options) {
    return (options || []).map(option => (option !== null && typeof option === 'object'
      ? [String(option.label === undefined ? option.value : option.label), option.value]
      : [String(option), option]));
  }

  /* SelectInput: the <option>s' values are the options' positions, so that a value keeps
     its type (a number stays a number); "" is the placeholder (no value, or one that is not
     an option), which a clearable menu offers as its first entry and sets the value to None. */
  function SelectInput(props) {
    const React = window.React;
    const {setProps, value, placeholder, clearable} = props;
    const pairs = optionPairs(props.options);
    const position = pairs.findIndex(pair => pair[1] === value);
    const chosen = position < 0 ? '' : String(position);
    const entries = pairs.map((pair, index) =>
      React.createElement('option', {key: index, value: String(index)}, pair[0]));
    if (clearable || chosen === '') {
      entries.unshift(React.createElement('option', {
        key: 'none', value: '', disabled: !clearable, hidden: !clearable,
      }, placeholder || ''));
    }
    const onChange = (event) => {
      const picked = event.target.value;
      setProps({value: picked === '' ? null : pairs[Number(picked)][1]});
    };
    return React.createElement('select', {
      id: props.id,
      className: props.className,
      style: props.style,
      title: props.title,
      disabled: props.disabled,
      value: chosen,
      onChange,
    }, entries);
  }

  window.dash_insight = Object.assign(window.dash_insight || {}, {RangeInput, SelectInput});
})();
