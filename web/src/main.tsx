import { render } from 'preact';
import { App } from './App.tsx';
import './stijl.css';

render(<App />, document.getElementById('app')!);
