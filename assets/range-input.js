/* The browser's own range input as a Dash component (dash_insight/web/components/range_input.py
   says why): Dash's renderer draws a component of namespace `dash_insight` and type
   `RangeInput` with window.dash_insight.RangeInput. `value` is set when the thumb is let go
   or moved by a key (the input's change event), or at each move with updatemode "drag";
   `drag_value` at each move. The thumb shows where it was moved to until then, and the
   track is filled up to it (--di-range-fill, assets/dash-insight.css). */
(function () {
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

  window.dash_insight = Object.assign(window.dash_insight || {}, {RangeInput});
})();
